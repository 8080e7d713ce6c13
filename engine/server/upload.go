package server

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/gofiber/fiber/v3"

	"glimpse/engine"
	"glimpse/engine/analysis"
	"glimpse/engine/brand"
	"glimpse/engine/instagram/export"
	"glimpse/engine/profile"
	"glimpse/engine/ui"
	"glimpse/screens"
)

// maxActionBody bounds a JSON action body. Uploads are streamed instead
// (the server streams any body over this size rather than buffering it).
const maxActionBody = 1 << 20

// requestBody is the request body as a stream, whether fasthttp buffered it
// (small bodies) or streams it (large ones).
func requestBody(c fiber.Ctx) io.Reader {
	if s := c.Request().BodyStream(); s != nil {
		return s
	}
	return bytes.NewReader(c.Body())
}

// readActionBody reads a JSON action body up to maxActionBody.
func readActionBody(c fiber.Ctx) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(requestBody(c), maxActionBody+1))
	if err != nil {
		return nil, engine.Wrap(engine.CodeInvalid, err, "The request could not be read.")
	}
	if len(b) > maxActionBody {
		return nil, engine.Errorf(engine.CodeInvalid, "The request is too large.")
	}
	return b, nil
}

// uploadExport takes an Instagram data export ZIP as the request body: it is
// spooled to a temporary file (a ZIP needs random access) under the size
// cap, imported, stored as a snapshot and analysed. A bad file stores
// nothing and says why.
//
// Reading an export is CPU-bound, so imports are bounded: one at a time per
// subscriber (a second is refused at once, before its body is read) and
// Config.ImportConcurrency per instance (later ones wait for a slot). The
// work stops when the server shuts down, when the client leaves, and after
// Config.ImportTimeout.
func (s *Server) uploadExport(r *request, body io.Reader) (*ui.Result, error) {
	if !r.authorised {
		return ui.Effects(ui.Replace(screens.PathSignIn)), nil
	}
	user := r.principal.User.ID
	if !s.uploads.claimUser(user) {
		return nil, &engine.Error{Code: engine.CodeConflict, Message: msgUploadBusy,
			Fields: map[string]string{screens.ExportInput: msgUploadBusy}}
	}
	defer s.uploads.releaseUser(user)

	ctx, cancel := context.WithCancelCause(r.fiber.Context())
	defer cancel(nil)
	rc := r.fiber.RequestCtx()
	// fasthttp closes the request context's Done channel when the server
	// shuts down; Fiber's c.Context() does not follow it.
	stopShutdown := context.AfterFunc(rc, func() { cancel(errShuttingDown) })
	defer stopShutdown()
	conn := rc.Conn()

	tmp, err := os.CreateTemp("", "glimpse-export-*.zip")
	if err != nil {
		return nil, fmt.Errorf("spool upload: %w", err)
	}
	// Every return, including a cancellation, removes the spooled copy.
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	idle := cmp.Or(s.Config.UploadIdleTimeout, defaultUploadIdleTimeout)
	in := &idleReader{ctx: ctx, r: body, conn: conn, idle: idle}
	stopUnblock := context.AfterFunc(ctx, in.unblock)
	defer stopUnblock()
	n, err := io.Copy(tmp, io.LimitReader(in, export.DefaultMaxZipBytes+1))
	switch {
	case ctx.Err() != nil:
		return nil, gone(ctx)
	case errors.Is(err, os.ErrDeadlineExceeded):
		rc.SetConnectionClose()
		return uploadError(r, fmt.Sprintf(msgUploadStalled, idle.Round(time.Second)))
	case err != nil:
		rc.SetConnectionClose()
		return nil, engine.Wrap(engine.CodeInvalid, err, r.copy.T("upload.failed"))
	}
	if n > export.DefaultMaxZipBytes {
		return uploadError(r, r.copy.T("upload.tooLarge"))
	}
	if n == 0 {
		return uploadError(r, r.copy.T("upload.required"))
	}

	// The whole body is in: from here on, a read from the connection that
	// ends means the client has gone (see watchClient).
	if stopWatch := watchClient(conn, func() { cancel(errClientGone) }); stopWatch != nil {
		defer stopWatch()
		rc.SetConnectionClose()
	}
	exp, err := s.importExport(ctx, tmp, n)
	if err != nil {
		var e *engine.Error
		if errors.As(err, &e) && e.Code == engine.CodeInvalid {
			return uploadError(r, e.Message)
		}
		if ctx.Err() != nil {
			return nil, gone(ctx)
		}
		return nil, err
	}
	if exp.Range != nil || len(exp.MissingFiles) > 0 || exp.Followers == nil {
		// A partial export would report everyone outside it as lost.
		return uploadError(r, partialExportMessage(r, exp))
	}
	p, err := s.Profiles.Get(ctx, user)
	if err != nil {
		return nil, err
	}
	if p.Source != profile.SourceExport {
		if err := s.Profiles.Connect(ctx, user, profile.SourceExport, exp.Owner, 0); err != nil {
			return nil, err
		}
	}
	followers := exp.Usernames(exp.Followers)
	snap := analysis.Snapshot{TakenAt: s.Clock.Now(), FollowerCount: len(followers), Followers: followers,
		Following: exp.Usernames(exp.Following)}
	if _, err := s.Profiles.AddSnapshot(ctx, user, snap); err != nil {
		return nil, err
	}
	if _, err := s.Profiles.Analyse(ctx, user); err != nil {
		return nil, err
	}
	page, err := s.analyticsScreen(r)
	if err != nil {
		return nil, err
	}
	return s.screenResult(r, page)
}

// importExport imports the spooled upload once one of the instance's
// import slots is free.
func (s *Server) importExport(ctx context.Context, tmp *os.File, size int64) (export.Export, error) {
	timeout := cmp.Or(s.Config.ImportTimeout, export.DefaultTimeout)
	if err := s.uploads.acquire(ctx, cmp.Or(s.Config.ImportConcurrency, defaultImportConcurrency), timeout); err != nil {
		return export.Export{}, err
	}
	defer s.uploads.release()
	start := time.Now()
	exp, err := export.Import(ctx, tmp, size, export.Limits{Timeout: timeout})
	s.Business.Import(start, err)
	return exp, err
}

// The defaults of Config's upload settings. An idle upload is one whose
// client sends nothing: 15 s is far longer than any pause of a working
// connection. Two imports at once suit the two-core default machine.
const (
	defaultUploadIdleTimeout = 15 * time.Second
	defaultImportConcurrency = 2
)

// The refusals of uploadExport. They are not brand copy yet: no key for
// them exists in content/brands, and the import's own messages are English
// too.
const (
	msgUploadBusy    = "An upload is already being processed. Wait for it to finish, then try again."
	msgUploadStalled = "The upload stopped: nothing arrived for %s. Check your connection and try again."
	msgImportsBusy   = "Glimpse is busy reading other exports. Try again in a few minutes."
	msgShuttingDown  = "Glimpse is restarting. Upload the export again in a minute."
)

var (
	errShuttingDown = errors.New("server shutting down")
	errClientGone   = errors.New("client closed the connection")
)

// gone is the error for an upload whose context ended: the server is
// shutting down or the client left, and either way the work is dropped.
func gone(ctx context.Context) error {
	return engine.Wrap(engine.CodeUnavailable, context.Cause(ctx), msgShuttingDown)
}

// uploadGate bounds the uploads being imported. The zero value is ready;
// the instance-wide slots are made on first use, sized from the config.
type uploadGate struct {
	mu    sync.Mutex
	users map[string]bool
	slots chan struct{}
}

// claimUser marks user as uploading, or reports false if they already are.
func (g *uploadGate) claimUser(user string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.users[user] {
		return false
	}
	if g.users == nil {
		g.users = map[string]bool{}
	}
	g.users[user] = true
	return true
}

func (g *uploadGate) releaseUser(user string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.users, user)
}

// acquire waits up to wait for one of n import slots.
func (g *uploadGate) acquire(ctx context.Context, n int, wait time.Duration) error {
	g.mu.Lock()
	if g.slots == nil {
		g.slots = make(chan struct{}, n)
	}
	slots := g.slots
	g.mu.Unlock()
	// A free slot is taken first: a select with a timer that has also fired
	// would pick at random.
	select {
	case slots <- struct{}{}:
		return nil
	default:
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("wait for an import slot: %w", context.Cause(ctx))
	case <-timer.C:
		return engine.Errorf(engine.CodeUnavailable, msgImportsBusy)
	}
}

func (g *uploadGate) release() { <-g.slots }

// idleReader fails a body read when no byte has arrived for idle, however
// long the whole upload takes: fasthttp's ReadTimeout bounds the request
// from its first byte, which fails every upload slower than ReadTimeout.
// Each read moves the connection's read deadline idle into the future.
type idleReader struct {
	ctx  context.Context
	r    io.Reader
	conn net.Conn
	idle time.Duration
	set  time.Time // when the deadline was last moved
}

func (i *idleReader) Read(p []byte) (int, error) {
	if err := i.ctx.Err(); err != nil {
		return 0, err
	}
	// Moving the deadline is cheap but not free; a quarter of the idle
	// time's slack is plenty.
	if now := time.Now(); i.conn != nil && now.Sub(i.set) > i.idle/4 {
		if err := i.conn.SetReadDeadline(now.Add(i.idle)); err != nil {
			return 0, fmt.Errorf("extend the read deadline: %w", err)
		}
		i.set = now
	}
	return i.r.Read(p)
}

// unblock wakes a read blocked on the connection once the context ends.
func (i *idleReader) unblock() {
	if i.conn != nil {
		_ = i.conn.SetReadDeadline(time.Now())
	}
}

// watchClient calls gone if the client closes the connection while the
// upload is being imported. Once the body has been read, a well-behaved
// client sends nothing until it has the response, so a read that ends in
// anything but the deadline this sets means the client has left. The
// response then closes the connection, since a byte read here is lost to
// the next request. Only a real TCP connection is watched (stop is nil
// otherwise): Fiber's in-memory test transport answers io.EOF at once.
func watchClient(conn net.Conn, gone func()) (stop func()) {
	tcp, ok := conn.(*net.TCPConn)
	if !ok || tcp.SetReadDeadline(time.Time{}) != nil {
		return nil
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		var b [1]byte
		if _, err := tcp.Read(b[:]); err != nil && !errors.Is(err, os.ErrDeadlineExceeded) {
			gone()
		}
	}()
	return func() {
		_ = tcp.SetReadDeadline(time.Now())
		<-done
		// fasthttp sets its own deadline before it reads the next request.
	}
}

func partialExportMessage(r *request, exp export.Export) string {
	msg := r.copy.T("upload.partial")
	if exp.Range != nil {
		msg = strings.NewReplacer("{from}", brand.Date(exp.Range.From), "{to}",
			brand.Date(exp.Range.To)).Replace(r.copy.T("upload.dateRange"))
	}
	return msg
}

// uploadError shows a message under the upload input.
func uploadError(r *request, msg string) (*ui.Result, error) {
	return nil, &engine.Error{Code: engine.CodeInvalid, Fields: map[string]string{screens.ExportInput: msg}}
}
