//go:build faults

package faults

import (
	"context"
	"net/http"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestDatabaseOutage runs the app on a database process of its own, kills
// that process under load and starts it again on the same files. While it is
// gone, requests that need it must fail fast and clearly (503, within the
// app's database timeout, never a hang or a 500); once it is back, the app
// must recover by itself within 5 s; and every write the app acknowledged
// (here: each session a sign-in returned) must still be there, checked on a
// fresh instance with empty caches.
func TestDatabaseOutage(t *testing.T) {
	dbDir := filepath.Join(t.TempDir(), "db")
	db, uri := dbServer(t, dbDir)
	a := startApp(t, "app", t.TempDir(), "MONGODB_URI="+uri)

	const writers, readers = 4, 2
	var (
		mu           sync.Mutex
		acknowledged []*browser // each holds a session the app said it stored
		down         = make(chan struct{})
		outage       statuses
		outageTook   latencies
		before       statuses
	)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	isDown := func() bool {
		select {
		case <-down:
			return true
		default:
			return false
		}
	}
	note := func(r reply, err error) {
		code := r.status
		if err != nil {
			code = 0
		}
		if isDown() {
			outage.add(code)
			outageTook.add(r.took)
		} else {
			before.add(code)
		}
	}
	for range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				b := newBrowser(a.base, 20*time.Second)
				r, ok, err := b.signIn(demoEmail, demoPassword)
				if ctx.Err() != nil {
					return
				}
				note(r, err)
				if ok {
					mu.Lock()
					acknowledged = append(acknowledged, b)
					mu.Unlock()
				}
			}
		}()
	}
	for range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b := newBrowser(a.base, 20*time.Second)
			if _, ok, err := b.signIn(demoEmail, demoPassword); !ok || err != nil {
				t.Errorf("reader sign-in: ok=%v err=%v", ok, err)
				return
			}
			for ctx.Err() == nil {
				r, err := b.screen("/dashboard/news")
				if ctx.Err() != nil {
					return
				}
				note(r, err)
			}
		}()
	}

	time.Sleep(seconds("FAULT_DB_WARMUP", 5))
	close(down)
	db.stop(syscall.SIGKILL)
	time.Sleep(seconds("FAULT_DB_OUTAGE", 5))

	db2, _ := dbServer(t, dbDir)
	defer db2.stop(syscall.SIGTERM)
	probe := newBrowser(a.base, 10*time.Second)
	recovery, ok := until(context.Background(), 30*time.Second, 50*time.Millisecond, func() bool {
		_, ok, err := probe.signIn(demoEmail, demoPassword)
		return ok && err == nil
	})
	cancel()
	wg.Wait()

	t.Logf("before the outage: %s", &before)
	t.Logf("during the outage: %s; p50 %v, max %v", &outage, outageTook.percentile(0.5), outageTook.percentile(1))
	t.Logf("recovered after the database came back: %v (ok=%v)", recovery, ok)
	if !ok || recovery > 5*time.Second {
		t.Errorf("no recovery within 5 s of the database's return (took %v, ok=%v)", recovery, ok)
	}
	if n := before.serverErrors(); n > 0 {
		t.Errorf("%d failures before the outage", n)
	}
	outage.mu.Lock()
	for code, n := range outage.n {
		if code >= 500 && code != http.StatusServiceUnavailable || code == 0 {
			t.Errorf("during the outage %d answers were %d (want 503 or success)", n, code)
		}
	}
	outage.mu.Unlock()
	if worst := outageTook.percentile(1); worst > 6*time.Second {
		t.Errorf("slowest answer during the outage took %v; want a clear 503 quickly", worst)
	}

	// Every acknowledged session, on a new instance that has cached nothing:
	// the dashboard (screen "home") answers instead of a redirect to sign-in.
	fresh := startApp(t, "fresh", t.TempDir(), "MONGODB_URI="+uri)
	lost := 0
	for _, b := range acknowledged {
		r, err := b.withBase(fresh.base).screen("/dashboard")
		if err != nil || r.status != http.StatusOK || screenID(r) != "home" {
			if lost == 0 {
				t.Logf("first lost session: status %d, screen %q, err %v", r.status, screenID(r), err)
			}
			lost++
		}
	}
	t.Logf("acknowledged sessions: %d, lost: %d", len(acknowledged), lost)
	if len(acknowledged) == 0 {
		t.Fatal("no write was acknowledged")
	}
	if lost > 0 {
		t.Errorf("%d of %d acknowledged sessions are gone", lost, len(acknowledged))
	}
}
