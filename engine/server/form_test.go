package server_test

import (
	"net/http"
	"testing"

	"glimpse/engine/staff"
)

// ruleMessages returns, from a screen's JSON, the message of each rule of
// each input, keyed by input id and then rule kind: what the person is shown.
func ruleMessages(t *testing.T, res response) map[string]map[string]string {
	t.Helper()
	out := map[string]map[string]string{}
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if id, ok := x["id"].(string); ok {
				if rules, ok := x["rules"].([]any); ok {
					out[id] = map[string]string{}
					for _, r := range rules {
						rm := r.(map[string]any)
						out[id][rm["kind"].(string)] = rm["message"].(string)
					}
				}
			}
			for _, c := range x {
				walk(c)
			}
		case []any:
			for _, c := range x {
				walk(c)
			}
		}
	}
	walk(res.body["screen"])
	if len(out) == 0 {
		t.Fatalf("no rules in %.300s", res.raw)
	}
	return out
}

// A sign-in's values are checked against the sign-in screen's own rules:
// each failing input gets the message the screen shows under it.
func TestSignInIsCheckedByTheScreensRules(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.subscriber("rules@example.com", "correct horse")
	rules := ruleMessages(t, h.screen("/sign-in"))
	if rules["email"]["email"] == "" || rules["password"]["min_length"] == "" {
		t.Fatalf("the sign-in screen's rules changed: %v", rules)
	}
	res := h.action("session.sign_in", map[string]any{"email": "rules-at-example.com", "password": "correct horse"})
	if res.status != http.StatusUnprocessableEntity || fieldErrors(res)["email"] != rules["email"]["email"] {
		t.Errorf("malformed email: %d %s, want 422 with %q under email", res.status, res.raw, rules["email"]["email"])
	}
	if _, ok := fieldErrors(res)["password"]; ok {
		t.Errorf("a good password got an error: %s", res.raw)
	}
	res = h.action("session.sign_in", map[string]any{"email": "rules@example.com", "password": ""})
	if res.status != http.StatusUnprocessableEntity || fieldErrors(res)["password"] != rules["password"]["min_length"] {
		t.Errorf("empty password: %d %s, want 422 with %q under password", res.status, res.raw, rules["password"]["min_length"])
	}
	// A size bound no screen declares still holds (the struct tags).
	long := make([]byte, 1025)
	for i := range long {
		long[i] = 'x'
	}
	if res := h.action("session.sign_in", map[string]any{"email": "rules@example.com", "password": string(long)}); res.status != http.StatusUnprocessableEntity || fieldErrors(res)["password"] == nil {
		t.Errorf("over-long password: %d %s", res.status, res.raw)
	}
	// Values the rules accept reach the sign-in itself.
	if res := h.signIn("rules@example.com", "correct horse"); !equalEffects(res, "/dashboard") {
		t.Errorf("good sign-in: %d %s", res.status, res.raw)
	}
}

func equalEffects(res response, to string) bool {
	e := effects(res)
	return res.status == http.StatusOK && len(e) == 1 && e[0]["to"] == to
}

// A path whose screen has no form posting the action is refused, not
// waved through: the rules come from the screen, so without one there are
// none to pass.
func TestFormActionFromAScreenWithoutItsFormIsRefused(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.subscriber("forged@example.com", "correct horse")
	h.screen("/sign-in")
	for _, path := range []string{"/privacy", "/nowhere", "", "/studio"} {
		res := h.actionAt(path, "session.sign_in", map[string]any{"email": "forged@example.com", "password": "correct horse"})
		if res.status != http.StatusUnprocessableEntity || formError(res) == "" {
			t.Errorf("sign-in from %q: %d %s, want 422 with a form error", path, res.status, res.raw)
		}
		if _, ok := h.cookies["glimpse_session"]; ok {
			t.Errorf("sign-in from %q set a session", path)
		}
	}
}

// The studio sign-in is checked against the studio sign-in screen's rules.
func TestStudioSignInIsCheckedByTheScreensRules(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	rules := ruleMessages(t, h.screen("/studio"))
	if rules["password"]["required"] == "" || rules["email"]["email"] == "" {
		t.Fatalf("the studio sign-in screen's rules changed: %v", rules)
	}
	res := h.action("studio.sign_in", map[string]any{"email": "ed@glimpse.example", "password": ""})
	if res.status != http.StatusUnprocessableEntity || fieldErrors(res)["password"] != rules["password"]["required"] {
		t.Errorf("empty password: %d %s, want 422 with %q under password", res.status, res.raw, rules["password"]["required"])
	}
	res = h.action("studio.sign_in", map[string]any{"email": "ed", "password": "whatever"})
	if res.status != http.StatusUnprocessableEntity || fieldErrors(res)["email"] != rules["email"]["email"] {
		t.Errorf("malformed email: %d %s, want 422 with %q under email", res.status, res.raw, rules["email"]["email"])
	}
	if res := h.actionAt("/sign-in", "studio.sign_in", map[string]any{"email": "ed@glimpse.example", "password": "x"}); res.status != http.StatusUnprocessableEntity {
		t.Errorf("studio sign-in from the subscriber screen: %d %s, want 422", res.status, res.raw)
	}
}

// An editor's change to a rule's message changes what the server answers
// as well as what the screen shows: one source for both.
func TestEditedRuleMessageIsTheServersMessage(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.studioSignIn(staff.RoleEditor)
	msg := "That does not look like an email address"
	if res := h.save(item("copy", "default/signIn.wrongEmail", map[string]any{"body": msg})); res.status != 200 {
		t.Fatalf("save copy: %d %s", res.status, res.raw)
	}
	if res := h.action("studio.publish", item("copy", "default/signIn.wrongEmail", nil)); res.status != 200 {
		t.Fatalf("publish copy: %d %s", res.status, res.raw)
	}
	d := &harness{t: t, app: h.app, srv: h.srv, clock: h.clock, cookies: map[string]string{}, host: h.host}
	if got := ruleMessages(t, d.screen("/sign-in"))["email"]["email"]; got != msg {
		t.Fatalf("the screen shows %q, want the edited %q", got, msg)
	}
	res := d.action("session.sign_in", map[string]any{"email": "nope", "password": "correct horse"})
	if res.status != http.StatusUnprocessableEntity || fieldErrors(res)["email"] != msg {
		t.Errorf("server: %d %s, want %q under email", res.status, res.raw, msg)
	}
}
