//go:build faults

package faults

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestDatabaseOutage takes the database away from an app under load and
// brings it back; every write the app acknowledged (here: each session a
// sign-in returned) must still be there afterwards, checked on an instance
// with empty caches.
//
// On the embedded store the database lives in the app's process: there is no
// database process to kill, so the app itself is killed (SIGKILL, as a crash
// or the OOM killer would) and started again on the same data directory. On
// MongoDB (GLIMPSE_TEST_MONGODB_URI, with FAULT_MONGODB_STOP and
// FAULT_MONGODB_START the commands that kill it and start it again, e.g.
// `docker compose kill mongo1 mongo2 mongo3` and `docker compose start mongo1
// mongo2 mongo3`) the database goes while the app runs: requests that need it
// must fail fast and clearly (503, within the app's database timeout, never a
// hang or a 500), and once it is back the app must recover by itself within
// 5 s.
func TestDatabaseOutage(t *testing.T) {
	t.Run("embedded store: the app killed and restarted", testAppKilled)
	t.Run("MongoDB killed and restarted", testMongoOutage)
}

func testAppKilled(t *testing.T) {
	dataDir := filepath.Join(t.TempDir(), "data")
	addr := freeAddr(t)
	a := startAppAt(t, "app", addr, dataDir)
	l := startOutageLoad(t, a.base)

	time.Sleep(seconds("FAULT_DB_WARMUP", 5))
	l.fail()
	a.stop(syscall.SIGKILL)
	time.Sleep(seconds("FAULT_DB_OUTAGE", 5))
	// The load stops before the restart: the sessions checked below were all
	// acknowledged by the killed process, so the new one has none cached.
	l.stop()

	t0 := time.Now()
	restarted := startAppAt(t, "restarted", addr, dataDir)
	defer restarted.stop(syscall.SIGTERM)
	probe := newBrowser(restarted.base, 10*time.Second)
	_, ok := until(context.Background(), 30*time.Second, 50*time.Millisecond, func() bool {
		_, ok, err := probe.signIn(demoEmail, demoPassword)
		return ok && err == nil
	})
	recovery := time.Since(t0)
	t.Logf("before the kill: %s", &l.before)
	t.Logf("while the app was down: %s", &l.outage)
	t.Logf("restarted on the same data directory and signing in after %v (ok=%v)", recovery, ok)
	if !ok || recovery > 5*time.Second {
		t.Errorf("the restarted app signs no one in within 5 s of its start (took %v, ok=%v)", recovery, ok)
	}
	if n := l.before.serverErrors(); n > 0 {
		t.Errorf("%d failures before the kill", n)
	}
	l.checkSessions(t, restarted.base)
}

func testMongoOutage(t *testing.T) {
	uri, database := mongoDatabase(t, "the MongoDB variant kills a database process of its own")
	stopCmd, startCmd := os.Getenv("FAULT_MONGODB_STOP"), os.Getenv("FAULT_MONGODB_START")
	if stopCmd == "" || startCmd == "" {
		t.Skip("FAULT_MONGODB_STOP and FAULT_MONGODB_START are unset: they kill the MongoDB of " +
			envMongoURI + " and start it again (e.g. docker compose kill/start of its members)")
	}
	env := []string{"MONGODB_URI=" + uri, "GLIMPSE_DATABASE=" + database}
	a := startApp(t, "app", t.TempDir(), env...)
	l := startOutageLoad(t, a.base)

	time.Sleep(seconds("FAULT_DB_WARMUP", 5))
	l.fail()
	shell(t, stopCmd)
	time.Sleep(seconds("FAULT_DB_OUTAGE", 5))

	shell(t, startCmd)
	probe := newBrowser(a.base, 10*time.Second)
	recovery, ok := until(context.Background(), 30*time.Second, 50*time.Millisecond, func() bool {
		_, ok, err := probe.signIn(demoEmail, demoPassword)
		return ok && err == nil
	})
	l.stop()

	t.Logf("before the outage: %s", &l.before)
	t.Logf("during the outage: %s; p50 %v, max %v", &l.outage, l.outageTook.percentile(0.5), l.outageTook.percentile(1))
	t.Logf("recovered after the database came back: %v (ok=%v)", recovery, ok)
	if !ok || recovery > 5*time.Second {
		t.Errorf("no recovery within 5 s of the database's return (took %v, ok=%v)", recovery, ok)
	}
	if n := l.before.serverErrors(); n > 0 {
		t.Errorf("%d failures before the outage", n)
	}
	l.outage.mu.Lock()
	for code, n := range l.outage.n {
		if code >= 500 && code != http.StatusServiceUnavailable || code == 0 {
			t.Errorf("during the outage %d answers were %d (want 503 or success)", n, code)
		}
	}
	l.outage.mu.Unlock()
	if worst := l.outageTook.percentile(1); worst > 6*time.Second {
		t.Errorf("slowest answer during the outage took %v; want a clear 503 quickly", worst)
	}

	// A new instance has cached nothing.
	fresh := startApp(t, "fresh", t.TempDir(), env...)
	l.checkSessions(t, fresh.base)
}

// outageLoad is the load an outage test runs: writers signing in over and
// over (each session the app returns is an acknowledged write) and readers
// reading the news screen, their answers counted before and during the
// outage.
type outageLoad struct {
	mu           sync.Mutex
	acknowledged []*browser // each holds a session the app said it stored
	down         chan struct{}
	outage       statuses
	outageTook   latencies
	before       statuses
	cancel       context.CancelFunc
	wg           sync.WaitGroup
}

func startOutageLoad(t *testing.T, base string) *outageLoad {
	const writers, readers = 4, 2
	ctx, cancel := context.WithCancel(context.Background())
	l := &outageLoad{down: make(chan struct{}), cancel: cancel}
	t.Cleanup(l.stop)
	note := func(r reply, err error) {
		code := r.status
		if err != nil {
			code = 0
			// A killed app refuses connections at once: pause rather than
			// spin on the refusals.
			time.Sleep(20 * time.Millisecond)
		}
		if l.isDown() {
			l.outage.add(code)
			l.outageTook.add(r.took)
		} else {
			l.before.add(code)
		}
	}
	for range writers {
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			for ctx.Err() == nil {
				b := newBrowser(base, 20*time.Second)
				r, ok, err := b.signIn(demoEmail, demoPassword)
				if ctx.Err() != nil {
					return
				}
				note(r, err)
				if ok {
					l.mu.Lock()
					l.acknowledged = append(l.acknowledged, b)
					l.mu.Unlock()
				}
			}
		}()
	}
	for range readers {
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			b := newBrowser(base, 20*time.Second)
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
	return l
}

func (l *outageLoad) isDown() bool {
	select {
	case <-l.down:
		return true
	default:
		return false
	}
}

// fail marks the start of the outage: answers from now on count as during it.
func (l *outageLoad) fail() { close(l.down) }

// stop ends the load and waits for its clients.
func (l *outageLoad) stop() {
	l.cancel()
	l.wg.Wait()
}

// checkSessions checks every acknowledged session on the instance at base:
// the dashboard (screen "home") answers instead of a redirect to sign-in.
func (l *outageLoad) checkSessions(t *testing.T, base string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	lost := 0
	for _, b := range l.acknowledged {
		r, err := b.withBase(base).screen("/dashboard")
		if err != nil || r.status != http.StatusOK || screenID(r) != "home" {
			if lost == 0 {
				t.Logf("first lost session: status %d, screen %q, err %v", r.status, screenID(r), err)
			}
			lost++
		}
	}
	t.Logf("acknowledged sessions: %d, lost: %d", len(l.acknowledged), lost)
	if len(l.acknowledged) == 0 {
		t.Fatal("no write was acknowledged")
	}
	if lost > 0 {
		t.Errorf("%d of %d acknowledged sessions are gone", lost, len(l.acknowledged))
	}
}
