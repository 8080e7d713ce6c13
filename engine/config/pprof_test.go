package config

import "testing"

// TestPprofAddrIsLoopbackOnly: GLIMPSE_PPROF_ADDR is off by default and
// refused for anything but a loopback host:port.
func TestPprofAddrIsLoopbackOnly(t *testing.T) {
	t.Parallel()
	load := func(addr string) (Config, error) {
		return Load(func(k string) string {
			switch k {
			case "GLIMPSE_PPROF_ADDR":
				return addr
			case "GLIMPSE_ENVIRONMENT":
				return Development
			}
			return ""
		})
	}
	if c, err := load(""); err != nil || c.PprofAddr != "" {
		t.Fatalf("default: %q, %v", c.PprofAddr, err)
	}
	for _, ok := range []string{"127.0.0.1:6060", "[::1]:6060", "localhost:0"} {
		if c, err := load(ok); err != nil || c.PprofAddr != ok {
			t.Errorf("%s: %q, %v", ok, c.PprofAddr, err)
		}
	}
	for _, bad := range []string{":6060", "0.0.0.0:6060", "10.0.0.1:6060", "example.com:6060", "127.0.0.1"} {
		if _, err := load(bad); err == nil {
			t.Errorf("%s was accepted", bad)
		}
	}
}
