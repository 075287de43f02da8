package doctor

import (
	"fmt"
	"io"
	"strings"

	"github.com/rdmatour/rdmatour/verbs"
)

// WriteDevices prints devices the way a short ibv_devinfo does: per device
// its transport, node GUID and netdevs; per port its state, MTUs, link
// layer and populated GIDs with their type.
func WriteDevices(w io.Writer, devs []verbs.DeviceInfo) {
	for i, dv := range devs {
		if i > 0 {
			fmt.Fprintln(w)
		}
		nd := strings.Join(dv.Netdevs, ", ")
		if nd == "" {
			nd = "-"
		}
		fmt.Fprintf(w, "%s\n", dv.Name)
		fmt.Fprintf(w, "    transport:   %s\n", dv.Transport)
		fmt.Fprintf(w, "    node GUID:   %s\n", dv.NodeGUID)
		fmt.Fprintf(w, "    netdevs:     %s\n", nd)
		for _, p := range dv.Ports {
			fmt.Fprintf(w, "    port %d:\n", p.Num)
			fmt.Fprintf(w, "        state:       %s (%d)\n", upper(p.State), int(p.State))
			fmt.Fprintf(w, "        active MTU:  %d (max %d)\n", p.ActiveMTU, p.MaxMTU)
			fmt.Fprintf(w, "        link layer:  %s\n", p.LinkLayer)
			if len(p.GIDs) == 0 {
				fmt.Fprintf(w, "        GIDs:        none\n")
			}
			for _, g := range p.GIDs {
				typ := g.Type
				if typ == "" {
					typ = "-"
				}
				fmt.Fprintf(w, "        GID[%3d]:    %-40s %s\n", g.Index, g.GID, typ)
			}
		}
	}
}
