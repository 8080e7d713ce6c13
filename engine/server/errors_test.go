package server

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/gofiber/fiber/v3"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/topology"

	"glimpse/engine"
)

// TestUnavailableDatabaseAnswers503 sends errors through the one error
// mapping: a database that cannot be reached is a 503 with a try-again
// message, while any other unexpected error stays a 500 with the generic one.
func TestUnavailableDatabaseAnswers503(t *testing.T) {
	t.Parallel()
	s := &Server{Deps: Deps{Logger: slog.New(slog.DiscardHandler)}}
	app := fiber.New(fiber.Config{ErrorHandler: s.handleError})
	app.Get("/gone", func(fiber.Ctx) error {
		return fmt.Errorf("find session: %w", topology.ServerSelectionError{Wrapped: fmt.Errorf("server selection timeout")})
	})
	app.Get("/bug", func(fiber.Ctx) error { return fmt.Errorf("a bug") })
	app.Get("/refused", func(fiber.Ctx) error { return engine.Errorf(engine.CodeNotFound, "No such thing.") })

	for path, want := range map[string]struct {
		status int
		form   string
	}{
		"/gone":    {http.StatusServiceUnavailable, "Something went wrong. Please try again later."},
		"/bug":     {http.StatusInternalServerError, "Something went wrong"},
		"/refused": {http.StatusNotFound, "No such thing."},
	} {
		res, err := app.Test(httptest.NewRequest(http.MethodGet, path, nil))
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(res.Body)
		var body struct {
			Errors struct{ Form string } `json:"errors"`
		}
		_ = json.Unmarshal(raw, &body)
		if res.StatusCode != want.status || body.Errors.Form != want.form {
			t.Errorf("GET %s = %d %q, want %d %q", path, res.StatusCode, body.Errors.Form, want.status, want.form)
		}
	}
}
