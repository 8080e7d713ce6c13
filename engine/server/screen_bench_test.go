package server_test

import (
	"io"
	"net"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v3"
	"github.com/valyala/fasthttp"

	"glimpse/engine/app"
	"glimpse/engine/server"
)

// BenchmarkScreenRequest serves the signed-in dashboard screen through the
// whole middleware chain as the real binary does (the info access log, a
// browser's Accept-Encoding), beside a bare Fiber endpoint answering 1 KB of
// JSON, both without the network: the server's own cost per request and what
// it allocates. `make load` measures the same request over loopback against
// the real binary (docs/benchmarks.md §3).
func BenchmarkScreenRequest(b *testing.B) {
	loopback := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 50000}
	drive := func(b *testing.B, handler fasthttp.RequestHandler, uri, cookie string) {
		var req fasthttp.Request
		var ctx fasthttp.RequestCtx
		ctx.Init(&req, loopback, nil)
		b.ReportAllocs()
		for b.Loop() {
			ctx.Request.Reset()
			ctx.Response.Reset()
			ctx.Request.SetRequestURI(uri)
			ctx.Request.Header.SetHost("127.0.0.1:8080")
			ctx.Request.Header.Set("X-SDUI-Version", "1")
			ctx.Request.Header.Set("Accept-Encoding", "gzip, deflate, br")
			if cookie != "" {
				ctx.Request.Header.Set("Cookie", cookie)
			}
			handler(&ctx)
			if ctx.Response.StatusCode() != fiber.StatusOK {
				b.Fatalf("%s answered %d: %s", uri, ctx.Response.StatusCode(), ctx.Response.Body())
			}
		}
	}

	b.Run("bare", func(b *testing.B) {
		app := fiber.New()
		body := map[string]string{"data": strings.Repeat("x", 1000)}
		app.Get("/json", func(c fiber.Ctx) error { return c.JSON(body) })
		drive(b, app.Handler(), "/json", "")
	})

	b.Run("dashboard", func(b *testing.B) {
		h := newHarnessDeps(b, func(d *server.Deps) {
			// As `glimpse serve` logs: a line per request at info.
			d.Logger = app.NewAccessLogger("info", io.Discard)
			d.ValidateResponses = false
		})
		h.subscriber("bench@example.com", "bench-password-1")
		if res := h.signIn("bench@example.com", "bench-password-1"); res.status != fiber.StatusOK {
			b.Fatalf("sign-in answered %d", res.status)
		}
		if res := h.screen("/dashboard"); screenID(res) != "home" {
			b.Fatalf("the dashboard answered %s", res.raw)
		}
		var cookies []string
		for name, value := range h.cookies {
			cookies = append(cookies, name+"="+value)
		}
		drive(b, h.srv.App().Handler(), "/ui/screen?path=%2Fdashboard", strings.Join(cookies, "; "))
	})
}
