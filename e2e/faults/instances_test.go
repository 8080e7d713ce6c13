//go:build faults

package faults

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestTwoInstances runs two app instances on one MongoDB database
// (GLIMPSE_TEST_MONGODB_URI), as two replicas behind a load balancer, and
// checks that what one does the other honours: a session opened on A works
// on B; a sign-out on A ends it on B within the session cache's 5 s; an
// editor's publish on A reaches B's subscribers within seconds; the
// per-account sign-in limit counted on A holds on B; and the demo seed both
// ran left one demo subscriber. The embedded store is one process's: its data
// directory's lock refuses a second instance, so without MongoDB the test
// skips.
func TestTwoInstances(t *testing.T) {
	uri, database := mongoDatabase(t, "two instances share a database only on MongoDB "+
		"(the embedded store's data-directory lock admits one process)")
	a := startApp(t, "a", t.TempDir(), "MONGODB_URI="+uri, "GLIMPSE_DATABASE="+database)
	b := startApp(t, "b", t.TempDir(), "MONGODB_URI="+uri, "GLIMPSE_DATABASE="+database)
	ctx := context.Background()

	t.Run("session and sign-out", func(t *testing.T) {
		onA := newBrowser(a.base, 10*time.Second)
		if _, ok, err := onA.signIn(demoEmail, demoPassword); !ok || err != nil {
			t.Fatalf("sign in on A: ok=%v err=%v", ok, err)
		}
		onB := onA.withBase(b.base)
		if r, err := onB.screen("/dashboard"); err != nil || screenID(r) != "home" {
			t.Fatalf("A's session on B: %q %v", screenID(r), err)
		}
		if _, err := onA.screen("/dashboard"); err != nil {
			t.Fatal(err)
		}
		if r, err := onA.action("session.sign_out", "/dashboard", map[string]any{}); err != nil || r.status != http.StatusOK {
			t.Fatalf("sign out on A: %d %v", r.status, err)
		}
		took, ok := until(ctx, 10*time.Second, 100*time.Millisecond, func() bool {
			r, err := onB.screen("/dashboard")
			return err == nil && strings.HasPrefix(screenID(r), "->")
		})
		t.Logf("B honoured A's sign-out after %v", took)
		if !ok || took > 6*time.Second {
			t.Errorf("B still serves the signed-out session after %v (ok=%v); want ≤ 5 s", took, ok)
		}
	})

	t.Run("publish reaches the other instance", func(t *testing.T) {
		editor := newBrowser(a.base, 10*time.Second)
		if _, err := editor.boot(); err != nil {
			t.Fatal(err)
		}
		if _, err := editor.screen("/studio"); err != nil {
			t.Fatal(err)
		}
		r, err := editor.action("studio.sign_in", "/studio", map[string]any{"email": editorEmail, "password": editorPass})
		if err != nil || r.status != http.StatusOK {
			t.Fatalf("studio sign-in on A: %d %v", r.status, err)
		}
		edit, err := editor.screen("/studio/edit/news/carousels-are-back")
		if err != nil || edit.status != http.StatusOK {
			t.Fatalf("edit screen: %d %v", edit.status, err)
		}
		state, _ := edit.body["state"].(map[string]any)
		form, _ := state["form"].(map[string]any)
		if form == nil {
			t.Fatalf("edit screen has no form state: %v", edit.body["state"])
		}
		title := fmt.Sprintf("Published on A at %d", time.Now().UnixNano())
		values := map[string]any{"/doc/kind": "news", "/doc/slug": "carousels-are-back"}
		for k, v := range form {
			values[k] = v
		}
		values["title"] = title
		if r, err := editor.action("studio.save", "/studio/edit/news/carousels-are-back", values); err != nil || r.status != http.StatusOK {
			t.Fatalf("save on A: %d %v %v", r.status, err, r.body)
		}
		if r, err := editor.action("studio.publish", "/studio/edit/news/carousels-are-back",
			map[string]any{"/doc/kind": "news", "/doc/slug": "carousels-are-back"}); err != nil || r.status != http.StatusOK {
			t.Fatalf("publish on A: %d %v", r.status, err)
		}
		reader := newBrowser(b.base, 10*time.Second)
		if _, ok, err := reader.signIn(demoEmail, demoPassword); !ok || err != nil {
			t.Fatalf("sign in on B: ok=%v err=%v", ok, err)
		}
		took, ok := until(ctx, 15*time.Second, 200*time.Millisecond, func() bool {
			r, err := reader.screen("/dashboard/news")
			raw, _ := json.Marshal(r.body)
			return err == nil && strings.Contains(string(raw), title)
		})
		t.Logf("A's publish reached B's subscribers after %v", took)
		if !ok {
			t.Errorf("B's news never showed the title published on A")
		}
	})

	t.Run("sign-in limit holds across instances", func(t *testing.T) {
		const account = "clean@example.com" // the demo's second subscriber
		guesser := newBrowser(a.base, 20*time.Second)
		refused := 0
		for i := range 10 {
			r, _, err := guesser.signIn(account, fmt.Sprintf("wrong-%d", i))
			if err != nil {
				t.Fatal(err)
			}
			if r.status == http.StatusTooManyRequests {
				refused++
			}
		}
		onB := newBrowser(b.base, 20*time.Second)
		r, _, err := onB.signIn(account, "another-wrong-guess")
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("after 10 failures on A (%d refused there), a guess on B answers %d", refused, r.status)
		if r.status != http.StatusTooManyRequests {
			t.Errorf("B evaluated an 11th guess for the account after 10 failures on A: %d", r.status)
		}
	})

	t.Run("no double work", func(t *testing.T) {
		// Both instances seeded the demo data at start; one subscriber and
		// one editor must exist, not two.
		onB := newBrowser(b.base, 10*time.Second)
		if _, ok, err := onB.signIn(demoEmail, demoPassword); !ok || err != nil {
			t.Fatalf("demo sign-in on B: ok=%v err=%v", ok, err)
		}
		re := regexp.MustCompile(`level=ERROR`)
		if n := a.logCount(re) + b.logCount(re); n > 0 {
			t.Errorf("%d ERROR lines in the instances' logs", n)
		}
	})
}
