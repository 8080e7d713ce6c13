package imageproxy

import (
	"net/http"
	"net/http/httptest"
)

// routeToTestServer sends every connection to server, whatever host the URL
// names, and trusts server's certificate. The URL checks and the dialer's
// address check still run, so a strict proxy refuses the loopback server.
func (p *Proxy) routeToTestServer(server *httptest.Server) {
	p.transport.TLSClientConfig.RootCAs = server.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs
	target := server.Listener.Addr().String()
	p.redirectDial = func(string) string { return target }
}

// allowLoopbackForTest lets p connect to loopback addresses, where httptest
// servers listen. Nothing outside tests can set it.
func (p *Proxy) allowLoopbackForTest() { p.allowLoopback = true }
