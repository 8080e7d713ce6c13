package app

import "github.com/gofiber/fiber/v3"

// fiberListenConfig keeps Fiber's banner out of the output: the binary
// prints its own start-up lines.
func fiberListenConfig() fiber.ListenConfig {
	return fiber.ListenConfig{DisableStartupMessage: true}
}
