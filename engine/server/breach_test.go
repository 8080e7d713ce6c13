package server_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"glimpse/engine"
)

// texts collects every text, title and label in a screen, in order.
func texts(v any) []string {
	var out []string
	switch x := v.(type) {
	case map[string]any:
		for _, k := range []string{"title", "text", "label", "value", "valueLabel", "countLabel"} {
			if s, ok := x[k].(string); ok {
				out = append(out, s)
			}
		}
		for k, c := range x {
			if k != "meta" {
				out = append(out, texts(c)...)
			}
		}
	case []any:
		for _, c := range x {
			out = append(out, texts(c)...)
		}
	}
	return out
}

func contains(list []string, want string) bool {
	for _, s := range list {
		if s == want {
			return true
		}
	}
	return false
}

func TestPasswordSafetyStates(t *testing.T) {
	t.Parallel()
	cases := []struct {
		email, want string
	}{
		{"demo@example.com", "EMAIL COMPROMISED!"},
		{"clean@example.com", "No breached accounts"},
		{"rate-limited@example.com", "Please try again later."},
		{"unavailable@example.com", "Something went wrong. Please try again later."},
	}
	for _, tc := range cases {
		t.Run(tc.email, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			h.subscriber(tc.email, "correct-horse")
			h.signIn(tc.email, "correct-horse")
			pending := h.screen("/dashboard/password-safety")
			screen := pending.body["screen"].(map[string]any)
			if onLoad, _ := screen["onLoad"].(map[string]any); onLoad["action"] != "breach.check" {
				t.Fatalf("the first visit does not start the check: %s", pending.raw)
			}
			checked := h.action("breach.check", nil)
			if checked.status != 200 || !contains(texts(checked.body["screen"]), tc.want) {
				t.Fatalf("after the check: %d, want %q in %s", checked.status, tc.want, checked.raw)
			}
			again := h.screen("/dashboard/password-safety")
			if tc.want == "EMAIL COMPROMISED!" || tc.want == "No breached accounts" {
				if s := again.body["screen"].(map[string]any); s["onLoad"] != nil || !contains(texts(s), tc.want) {
					t.Fatalf("the next visit is not served from the stored result: %s", again.raw)
				}
			} else if again.body["screen"].(map[string]any)["onLoad"] == nil {
				t.Fatalf("a failed check was stored: %s", again.raw)
			}
		})
	}
}

func TestCompromisedListsBreachDetails(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.subscriber("demo@example.com", "correct-horse")
	h.signIn("demo@example.com", "correct-horse")
	h.screen("/dashboard/password-safety")
	res := h.action("breach.check", nil)
	all := strings.Join(texts(res.body["screen"]), "\n")
	for _, want := range []string{"Breached sites", "Email addresses", "Sample data:"} {
		if !strings.Contains(all, want) {
			t.Errorf("missing %q in:\n%s", want, all)
		}
	}
	if strings.Contains(string(res.raw), "<a ") || strings.Contains(string(res.raw), "&amp;") {
		t.Errorf("breach descriptions carry HTML: %s", res.raw)
	}
	var env map[string]any
	if err := json.Unmarshal(res.raw, &env); err != nil || env["v"] != float64(1) {
		t.Fatalf("the check does not answer an envelope: %s", res.raw)
	}
}

func TestBreachedPasswordIsRefused(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	_, err := h.app.Auth.CreateUser(context.Background(), "ann@example.com", "password")
	var e *engine.Error
	if err == nil || !asError(err, &e) || e.Fields["password"] == "" {
		t.Fatalf("a breached password was accepted: %v", err)
	}
	if _, err := h.app.Auth.CreateUser(context.Background(), "ann@example.com", "a-long-unbreached-phrase"); err != nil {
		t.Fatalf("a fresh password was refused: %v", err)
	}
}
