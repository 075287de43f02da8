package main

import (
	"fmt"
	"io"
)

func runDevices(stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "rdmatour devices: not implemented yet")
	return 1
}

func runDoctor(stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "rdmatour doctor: not implemented yet")
	return 1
}
