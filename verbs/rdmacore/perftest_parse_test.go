//go:build linux && cgo

package rdmacore

import "testing"

// The tables below are ib_write_lat's and ib_write_bw's as perftest printed
// them on rxe0 in the QEMU guest (tabs included).
func TestParsePerftest(t *testing.T) {
	cases := []struct {
		name, out string
		want      map[string]string
		wantErr   bool
	}{
		{name: "ib_write_lat", out: " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] \n" +
			" 8       20000          12.57          3997.50      14.18    \t       18.30       \t62.48  \t\t104.59  \t\t277.01 \n",
			want: map[string]string{"#bytes": "8", "t_typical[usec]": "14.18", "t_avg[usec]": "18.30", "99% percentile[usec]": "104.59", "99.9% percentile[usec]": "277.01"}},
		{name: "ib_write_bw", out: "---\n #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]\n" +
			" 65536      5000             61.36              37.17  \t\t   0.000595\n---\n",
			want: map[string]string{"#iterations": "5000", "BW peak[MB/sec]": "61.36", "BW average[MB/sec]": "37.17", "MsgRate[Mpps]": "0.000595"}},
		{name: "no table", out: "Couldn't connect to 10.0.2.15:18515\n", wantErr: true},
		{name: "short row", out: " #bytes #iterations    t_min[usec]\n 8 20000\n", wantErr: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			row, err := parsePerftest(c.out)
			if (err != nil) != c.wantErr {
				t.Fatalf("err %v, want error %v", err, c.wantErr)
			}
			for k, v := range c.want {
				if row[k] != v {
					t.Errorf("%q = %q, want %q (row %v)", k, row[k], v, row)
				}
			}
		})
	}
}
