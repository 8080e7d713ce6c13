// Command barejson is the baseline of `make bench` (docs/benchmarks.md §3): a
// bare Fiber app answering 1 KB of JSON at GET /bare, with no middleware, on
// the address in its first argument (default 127.0.0.1:8090).
package main

import (
	"log"
	"os"
	"strings"

	"github.com/gofiber/fiber/v3"
)

func main() {
	addr := "127.0.0.1:8090"
	if len(os.Args) > 1 {
		addr = os.Args[1]
	}
	payload := map[string]any{"items": strings.Repeat("x", 1000)}
	app := fiber.New()
	app.Get("/bare", func(c fiber.Ctx) error { return c.JSON(payload) })
	log.Fatal(app.Listen(addr, fiber.ListenConfig{DisableStartupMessage: true}))
}
