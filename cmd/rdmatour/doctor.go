package main

import (
	"fmt"
	"io"

	"github.com/rdmatour/rdmatour/doctor"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs/rdmacore"
)

// openLister loads the real libraries. It returns a nil interface (not a
// nil *rdmacore.Provider) on error, so callers' nil checks work.
func openLister() (doctor.Lister, error) {
	p, err := rdmacore.Open()
	if err != nil {
		return nil, err
	}
	return p, nil
}

func runDevices(stdout, stderr io.Writer) int {
	return listDevices(openLister, stdout, stderr)
}

// listDevices is runDevices with the library loader as a parameter.
func listDevices(open func() (doctor.Lister, error), stdout, stderr io.Writer) int {
	p, err := open()
	if err != nil {
		// A *rdmacore.LoadError already names the library and the package.
		fmt.Fprintf(stderr, "rdmatour devices: %v\n", err)
		return 1
	}
	devs, err := p.Devices()
	if err != nil {
		fmt.Fprintf(stderr, "rdmatour devices: listing RDMA devices: %v\n", err)
		return 1
	}
	if len(devs) == 0 {
		fmt.Fprintln(stderr, "no RDMA devices found (run `rdmatour doctor`)")
		return 1
	}
	doctor.WriteDevices(stdout, devs)
	return 0
}

func runDoctor(c console) int {
	// doctor takes no flags: its language comes from the locale, like the
	// tour's default.
	d := doctor.System(text.LangFromEnv(c.getenv), openLister)
	r := d.Run()
	r.Write(c.stdout)
	return r.ExitCode()
}
