// Package stripetest runs stripe-mock (github.com/stripe/stripe-mock, pinned
// as a tool in go.mod) for tests: a local server that checks requests
// against Stripe's OpenAPI spec and answers with fixtures. It keeps no state
// and sends no webhooks, so it shows that we send valid parameters to the
// right paths, not how Stripe behaves.
package stripetest

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// Key is the secret key stripe-mock accepts.
const Key = "sk_test_123"

// StartMock starts stripe-mock on two free loopback ports (HTTP and HTTPS:
// given only one address it opens the other on every interface) and returns
// its HTTP base URL. It stops when the test ends, and with the test binary
// if that dies (Linux). The test is skipped if the tool cannot be built.
func StartMock(t testing.TB) string {
	t.Helper()
	out, err := exec.Command("go", "tool", "-n", "stripe-mock").Output()
	if err != nil {
		t.Skipf("stripe-mock cannot be built (go tool -n stripe-mock: %v); run `go mod download` with network access", err)
	}
	bin := strings.TrimSpace(string(out))
	var lastErr error
	for range 3 {
		base, err := start(t, bin)
		if err == nil {
			return base
		}
		lastErr = err
	}
	t.Fatalf("stripe-mock: %v", lastErr)
	return ""
}

func start(t testing.TB, bin string) (string, error) {
	httpPort, httpsPort := freePort(), freePort()
	if httpPort == "" || httpsPort == "" || httpPort == httpsPort {
		return "", fmt.Errorf("no free loopback port")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, "-http-addr", "127.0.0.1:"+httpPort, "-https-addr", "127.0.0.1:"+httpsPort)
	logs := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = logs, logs
	cmd.SysProcAttr = dieWithParent()
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		cancel()
		return "", err
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	stop := func() { cancel(); <-done }
	base := "http://127.0.0.1:" + httpPort
	deadline := time.Now().Add(60 * time.Second)
	for {
		select {
		case <-done:
			cancel()
			return "", fmt.Errorf("exited at start: %s", logs.String())
		default:
		}
		req, _ := http.NewRequest(http.MethodGet, base+"/v1/customers", nil)
		req.SetBasicAuth(Key, "")
		if res, err := http.DefaultClient.Do(req); err == nil {
			_ = res.Body.Close()
			if res.StatusCode == http.StatusOK {
				t.Cleanup(stop)
				return base, nil
			}
		}
		if time.Now().After(deadline) {
			stop()
			return "", fmt.Errorf("not answering after 60s: %s", logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func freePort() string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return ""
	}
	defer l.Close()
	_, port, _ := net.SplitHostPort(l.Addr().String())
	return port
}

// lockedBuffer collects the server's output, written by exec's copying
// goroutine and read by the start loop.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
