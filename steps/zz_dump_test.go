package steps

import (
	"fmt"
	"os"
	"testing"
)

func TestZZDumpGeneric(t *testing.T) {
	f, _ := os.Create(os.Getenv("DUMP"))
	defer f.Close()
	dump := func(name string, tour []Step) {
		for _, st := range tour {
			fmt.Fprintf(f, "== %s %s\n%s\n", name, st.ID, st.Call)
		}
	}
	dump("server", serverTour())
	for _, n := range []Notify{NotifySend, NotifyDoorbell, NotifyImm} {
		dump("client-"+n.String(), clientTour(n))
	}
	for i, t := range manualTours() {
		dump(fmt.Sprint("manual", i), t)
	}
	for _, l := range Lessons() {
		for _, role := range []Role{Server, Client} {
			cfg := Config{Role: role, Notify: l.Notify}
			tour := serverTour()
			if role == Client {
				tour = clientTour(l.Notify)
			}
			dump(l.Name+role.String(), l.apply(cfg, tour))
		}
	}
}
