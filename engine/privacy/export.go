package privacy

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"glimpse/engine"
	"glimpse/engine/auth"
	"glimpse/engine/experiment"
	"glimpse/engine/mail"
)

// Statuses of an export.
const (
	ExportQueued = "queued"
	ExportReady  = "ready"
	ExportFailed = "failed"
)

// ExportWindow is how often a person may ask for a new export: one request
// per window (a unique key on the person and the window), so a double tap or
// a script builds one.
const ExportWindow = 10 * time.Minute

// exportChunkSize keeps each stored part of a ZIP far below the 16 MB a
// document may hold.
const exportChunkSize = 4 << 20

// Errors of exports.
var (
	// ErrExportRecent is a request within ExportWindow of the last one.
	ErrExportRecent = engine.Errorf(engine.CodeRateLimited, "an export was requested moments ago")
	// ErrExportLink is a download key that is unknown, expired or not the
	// signed-in person's.
	ErrExportLink = engine.Errorf(engine.CodeNotFound, "the download link is unknown or has expired")
)

// Export is one data export as the screen shows it.
type Export struct {
	ID     string
	UserID string
	Brand  string
	Status string
	// Window is the request window (ExportWindow) the person asked in: one
	// export per person and window. An export remade after a deletion
	// keeps its request's.
	Window      string
	RequestedAt time.Time
	ReadyAt     time.Time
	// ExpiresAt is when the export and its links are deleted.
	ExpiresAt time.Time
	Size      int64
	Chunks    int
}

// requestWindow names the ExportWindow t falls in.
func requestWindow(t time.Time) string {
	return strconv.FormatInt(t.UnixNano()/int64(ExportWindow), 10)
}

// RequestExport queues an export of everything held about the person; the
// export job builds it (RunExports) and mails the link. One request per
// person per ExportWindow counts: the others get ErrExportRecent.
func (s *Service) RequestExport(ctx context.Context, userID, brandKey string) (Export, error) {
	now := s.now()
	e := Export{ID: engine.NewID(), UserID: userID, Brand: brandKey, Status: ExportQueued, Window: requestWindow(now),
		RequestedAt: now, ExpiresAt: now.Add(s.o.ExportLifetime)}
	ok, err := s.st.Exports.Request(ctx, e)
	if err != nil {
		return Export{}, fmt.Errorf("request export: %w", err)
	}
	if !ok {
		return Export{}, ErrExportRecent
	}
	select {
	case s.wake <- struct{}{}:
	default:
	}
	return e, nil
}

// remakeExports follows a deletion the person made (disconnecting
// Instagram, or Meta's deletion callback for them): every export prepared
// before it, with its parts and download links (the mailed one too), is
// deleted, so no export still holds what was deleted. In place of the
// newest one, ready or being prepared, a new export is queued: the person
// asked for their data and gets it as it is now, with a new mail.
func (s *Service) remakeExports(ctx context.Context, userID string) error {
	latest, ok, err := s.LatestExport(ctx, userID)
	if err != nil {
		return err
	}
	if err := s.st.Exports.DeleteUser(ctx, userID); err != nil {
		return fmt.Errorf("remake exports: %w", err)
	}
	if !ok || latest.Status == ExportFailed {
		return nil
	}
	// The new export takes the request's window, which the deletion freed:
	// remaking it is no second request.
	now := s.now()
	e := Export{ID: engine.NewID(), UserID: userID, Brand: latest.Brand, Status: ExportQueued, Window: latest.Window,
		RequestedAt: now, ExpiresAt: now.Add(s.o.ExportLifetime)}
	if _, err := s.st.Exports.Request(ctx, e); err != nil {
		return fmt.Errorf("remake exports: %w", err)
	}
	select {
	case s.wake <- struct{}{}:
	default:
	}
	return nil
}

// LatestExport returns the person's newest export that has not expired.
func (s *Service) LatestExport(ctx context.Context, userID string) (Export, bool, error) {
	e, ok, err := s.st.Exports.Latest(ctx, userID, s.now())
	if err != nil {
		return Export{}, false, fmt.Errorf("latest export: %w", err)
	}
	return e, ok, nil
}

// downloadKeyLifetime is how long a key minted for the screen's button
// works: long enough to start the download.
const downloadKeyLifetime = 10 * time.Minute

// DownloadKey mints a key for the person's ready export, for the screen's
// download button. The mail carries a key of its own (mintKey).
func (s *Service) DownloadKey(ctx context.Context, userID string) (string, error) {
	e, ok, err := s.LatestExport(ctx, userID)
	if err != nil {
		return "", err
	}
	if !ok || e.Status != ExportReady {
		return "", ErrExportLink
	}
	expires := s.now().Add(downloadKeyLifetime)
	if e.ExpiresAt.Before(expires) {
		expires = e.ExpiresAt
	}
	return s.mintKey(ctx, e, expires)
}

func (s *Service) mintKey(ctx context.Context, e Export, expires time.Time) (string, error) {
	token := engine.NewToken()
	k := ExportKey{Hash: engine.HashToken(token), ExportID: e.ID, UserID: e.UserID, ExpiresAt: expires}
	if err := s.st.Exports.InsertKey(ctx, k); err != nil {
		return "", fmt.Errorf("mint export key: %w", err)
	}
	return token, nil
}

// Download returns the ZIP a key opens, for the signed-in person it was
// minted for; any other key, or another person's, is ErrExportLink.
func (s *Service) Download(ctx context.Context, userID, key string) (Export, []byte, error) {
	if key == "" || len(key) > 128 {
		return Export{}, nil, ErrExportLink
	}
	k, found, err := s.st.Exports.Key(ctx, engine.HashToken(key))
	if err != nil {
		return Export{}, nil, fmt.Errorf("download export: %w", err)
	}
	if !found || subtle.ConstantTimeCompare([]byte(k.UserID), []byte(userID)) != 1 || !s.now().Before(k.ExpiresAt) {
		return Export{}, nil, ErrExportLink
	}
	e, found, err := s.st.Exports.Get(ctx, k.ExportID)
	if err != nil {
		return Export{}, nil, fmt.Errorf("download export: %w", err)
	}
	if !found || e.Status != ExportReady || !s.now().Before(e.ExpiresAt) {
		return Export{}, nil, ErrExportLink
	}
	parts, err := s.st.Exports.Parts(ctx, e.ID)
	if err != nil {
		return Export{}, nil, fmt.Errorf("download export: %w", err)
	}
	if len(parts) != e.Chunks {
		return Export{}, nil, fmt.Errorf("download export %s: %d of its %d parts", e.ID, len(parts), e.Chunks)
	}
	data := make([]byte, 0, e.Size)
	for _, p := range parts {
		data = append(data, p...)
	}
	return e, data, nil
}

// exportLease is how long a builder holds an export; one that dies leaves
// the export to be built again once its lease has lapsed.
const exportLease = 15 * time.Minute

// exportBatch is how many queued exports one builder leases at a time.
const exportBatch = 10

// BuildPending builds every queued export it can lease and returns how many
// it built. Any number of instances may run it: each export is leased by a
// conditional update, so one builds it.
func (s *Service) BuildPending(ctx context.Context) (int, error) {
	built := 0
	for {
		now := s.now()
		queued, err := s.st.Exports.ClaimQueued(ctx, s.owner, now, now.Add(exportLease), exportBatch)
		if err != nil {
			return built, fmt.Errorf("lease queued exports: %w", err)
		}
		if len(queued) == 0 {
			return built, nil
		}
		for _, e := range queued {
			if err := s.build(ctx, e); err != nil {
				s.o.Logger.Error("build data export", "export", e.ID, "error", err)
				if ferr := s.st.Exports.Fail(ctx, e.ID); ferr != nil {
					return built, fmt.Errorf("mark export failed: %w", ferr)
				}
				continue
			}
			built++
		}
	}
}

// RunExports builds queued exports every interval, and at once when one is
// requested on this instance, until ctx ends.
func (s *Service) RunExports(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		if _, err := s.BuildPending(ctx); err != nil && ctx.Err() == nil {
			s.o.Logger.Error("build data exports", "error", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-s.wake:
		}
	}
}

func (s *Service) build(ctx context.Context, e Export) error {
	u, err := s.o.Auth.User(ctx, e.UserID)
	if err != nil {
		return err
	}
	zipped, err := s.Archive(ctx, u)
	if err != nil {
		return err
	}
	var parts [][]byte
	for start := 0; start < len(zipped) || len(parts) == 0; start += exportChunkSize {
		parts = append(parts, zipped[start:min(start+exportChunkSize, len(zipped))])
	}
	ok, err := s.st.Exports.Finish(ctx, e.ID, s.now(), parts)
	if err != nil {
		return fmt.Errorf("store export: %w", err)
	}
	if !ok {
		// Deleted while it was built (a deletion the person made, their
		// account's, its expiry): what was read before that deletion is
		// not kept (Finish kept no part), nor mailed.
		return nil
	}
	e.Status = ExportReady
	key, err := s.mintKey(ctx, e, e.ExpiresAt)
	if err != nil {
		return err
	}
	return s.o.Mail.Enqueue(ctx, mail.Message{Key: "data-export:" + e.ID, To: u.Email, Brand: e.Brand,
		Template: mail.TemplateDataExport, Data: map[string]string{"link": DownloadPath + "?key=" + key,
			"expires": e.ExpiresAt.Format("2 January 2006")}})
}

// DownloadPath is the address an export is downloaded from (?key=…; the
// access log hides the key).
const DownloadPath = "/privacy/export"

// file is one document of the archive, with what README.txt says of it
// and of each of its fields.
type file struct {
	Name        string  `json:"name"`
	Description string  `json:"description"`
	Fields      []field `json:"fields"`
	data        any
}

// Archive builds the ZIP of everything held about the person: one JSON
// document per kind of data, in words a person reads (export_files.go), a
// README.txt explaining each file and each of its fields, and a
// manifest.json saying the same for programs. Password hashes, tokens,
// internal keys, staff's names and other people's data are left out.
func (s *Service) Archive(ctx context.Context, u auth.User) ([]byte, error) {
	files, err := s.collect(ctx, u)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	now := s.now()
	manifest := map[string]any{"madeAt": now, "accountId": u.ID, "files": files}
	all := append([]file{{Name: "README.txt", data: readme(u, now, files)}, {Name: "manifest.json", data: manifest}}, files...)
	for _, f := range all {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: f.Name, Method: zip.Deflate, Modified: now})
		if err != nil {
			return nil, fmt.Errorf("archive %s: %w", f.Name, err)
		}
		if text, ok := f.data.(string); ok {
			_, err = w.Write([]byte(text))
		} else {
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			enc.SetEscapeHTML(false)
			err = enc.Encode(f.data)
		}
		if err != nil {
			return nil, fmt.Errorf("archive %s: %w", f.Name, err)
		}
	}
	if err := zw.Close(); err != nil {
		return nil, fmt.Errorf("archive: %w", err)
	}
	return buf.Bytes(), nil
}

// readme is README.txt: what the export is, how to read it, what is left
// out, and every file with each of its fields.
func readme(u auth.User, now time.Time, files []file) string {
	var b strings.Builder
	b.WriteString("Your data from Glimpse\n======================\n\n")
	b.WriteString("Made on " + now.Format("2 January 2006 at 15:04") + " UTC for " + u.Email + ".\n\n")
	b.WriteString("This is everything Glimpse holds about you, one file for each kind of data. The .json\n" +
		"files are plain text (JSON, UTF-8): open them with any text editor, or a program that reads JSON.\n" +
		"Each file below is explained field by field.\n\n" +
		"How to read it:\n" +
		"- Times are written like 2026-11-01T09:00:00Z: the date, then the time in UTC (the Z).\n" +
		"- A field that has no value (a date that never happened, a card never given) is left out.\n" +
		"- Amounts are written as on your receipts ($13.99), with the currency's three-letter code.\n" +
		"- A field inside another is named parent.child below; * stands for any name.\n\n" +
		"What is not here:\n" +
		"- Your password: we keep only a one-way hash of it, which cannot be turned back into it.\n" +
		"- Sign-in links, access tokens and the keys our systems use to find your records.\n" +
		"- The text of the mails we sent you: a link in one may still work, and this file may be kept\n" +
		"  or passed around. mails.json lists each mail.\n" +
		"- Who in our team helped you: changes made by our support team say \"support\".\n\n" +
		"Questions, or something wrong? Write to the address our privacy policy gives (linked at the foot\n" +
		"of every page of the app).\n\n" +
		"Files\n=====\n")
	for _, f := range files {
		b.WriteString("\n" + f.Name + "\n" + strings.Repeat("-", len(f.Name)) + "\n" + f.Description + "\n\n")
		for _, fl := range f.Fields {
			b.WriteString("  - " + fl.Name + ": " + fl.Meaning + "\n")
		}
	}
	b.WriteString("\nmanifest.json\n-------------\nThe same list of files and fields, for programs.\n")
	return b.String()
}

// collect reads everything held about the person, file by file.
func (s *Service) collect(ctx context.Context, u auth.User) ([]file, error) {
	subs, err := s.subscriptionsOf(ctx, u)
	if err != nil {
		return nil, err
	}
	plans, purchases, history := []planView{}, []planView{}, []changeView{}
	subIDs := make([]string, 0, len(subs))
	items := map[string]string{}
	emails := []string{u.Email}
	for _, sub := range subs {
		subIDs = append(subIDs, sub.ID)
		items[sub.ID] = itemName(sub.PlanCode)
		if sub.MainPlan {
			plans = append(plans, viewPlan(sub))
		} else {
			purchases = append(purchases, viewPlan(sub))
		}
		h, err := s.o.Billing.History(ctx, sub.ID)
		if err != nil {
			return nil, err
		}
		for _, c := range h {
			history = append(history, viewChange(c, u.ID))
		}
		for _, e := range sub.Emails {
			if e != "" && !strings.EqualFold(e, u.Email) {
				emails = append(emails, e)
			}
		}
	}
	charges, err := s.o.Billing.ChargesOf(ctx, subIDs)
	if err != nil {
		return nil, err
	}
	payments := make([]chargeView, 0, len(charges))
	for _, ch := range charges {
		refunds, err := s.o.Billing.RefundsOf(ctx, ch.ID)
		if err != nil {
			return nil, err
		}
		payments = append(payments, viewCharge(ch, items, refunds))
	}
	receipts, err := s.receiptMails(ctx, charges)
	if err != nil {
		return nil, err
	}
	mails, err := s.o.Mail.To(ctx, emails, receipts)
	if err != nil {
		return nil, err
	}
	// The bodies are left out: a link in one may still work, and an export
	// is a file people keep and pass around.
	sentMail := make([]mailView, 0, len(mails))
	for _, m := range mails {
		sentMail = append(sentMail, viewMail(m))
	}
	attempts, err := s.cancelAttempts(ctx, u.ID)
	if err != nil {
		return nil, err
	}
	recorded, err := s.o.Events.OfUser(ctx, u.ID)
	if err != nil {
		return nil, err
	}
	events := make([]eventView, 0, len(recorded))
	for _, e := range recorded {
		events = append(events, viewEvent(e))
	}
	exposures, err := s.exposures(ctx, u.ID)
	if err != nil {
		return nil, err
	}
	breaches, err := s.breachChecks(ctx, u.ID)
	if err != nil {
		return nil, err
	}
	prof, snaps, err := s.instagramData(ctx, u.ID)
	if err != nil {
		return nil, err
	}
	return []file{
		{"account.json", "Your account.", accountFields, viewAccount(u)},
		{"subscriptions.json", "Your plans, one entry each.", planFields, plans},
		{"purchases.json", "Your one-time purchases (the PDF course, the profile report, the Reels playbook), " +
			"with the same fields as subscriptions.json.", planFields, purchases},
		{"subscription_history.json", "Every change to your plans and purchases, oldest first.", changeFields, history},
		{"charges.json", "Every payment taken or tried, and any money given back.", chargeFields, payments},
		{"cancel_attempts.json", "Each time you opened the cancellation flow, and what you chose in it.", attemptFields, attempts},
		{"mails.json", "Every mail we sent you or are about to send (the text of each is left out).", mailFields, sentMail},
		{"events.json", "What you did in the app, as we recorded it to improve it; each event is deleted after 180 days.",
			eventFields, events},
		{"experiments.json", "The versions of pages you were shown while we compared versions of them.", exposureFields, exposures},
		{"instagram_profile.json", "Your connected Instagram profile and its latest analysis (the access token is not included).",
			profileFields, prof},
		{"instagram_snapshots.json", "Each stored reading of your Instagram profile, oldest first: followers, following and posts.",
			snapshotFields, snaps},
		{"breach_checks.json", "Your last check of your address against known data breaches.", breachFields, breaches},
	}, nil
}

func (s *Service) instagramData(ctx context.Context, userID string) (profileView, []snapshotView, error) {
	p, err := s.o.Profiles.Get(ctx, userID)
	if err != nil {
		return profileView{}, nil, err
	}
	snaps := []snapshotView{}
	for _, ref := range p.Snapshots {
		snap, err := s.o.Profiles.Snapshot(ctx, ref.ID)
		if err != nil {
			return profileView{}, nil, err
		}
		snaps = append(snaps, viewSnapshot(snap))
	}
	return viewProfile(p), snaps, nil
}

// cancelAttempts reads the person's cancel attempts, oldest first, each
// with its events.
func (s *Service) cancelAttempts(ctx context.Context, userID string) ([]attemptView, error) {
	attempts, events, err := s.o.Retention.Export(ctx, userID)
	if err != nil {
		return nil, err
	}
	out := make([]attemptView, 0, len(attempts))
	for _, a := range slices.Backward(attempts) {
		out = append(out, viewAttempt(a, events[a.ID]))
	}
	return out, nil
}

// exposures reads the experiment variants the person was shown and what
// they did after, each named by its experiment's name.
func (s *Service) exposures(ctx context.Context, userID string) ([]exposureView, error) {
	marks, err := s.o.Experiments.MarksOf(ctx, userID)
	if err != nil {
		return nil, err
	}
	slices.SortFunc(marks, func(a, b experiment.Mark) int { return a.At.Compare(b.At) })
	names := map[string]string{}
	out := make([]exposureView, 0, len(marks))
	for _, m := range marks {
		what := m.Event
		if what == experiment.MarkExposure {
			what = "shown"
		}
		name, ok := names[m.Experiment]
		if !ok {
			e, err := s.o.Experiments.Get(ctx, m.Experiment)
			if err != nil && engine.ErrorCode(err) != engine.CodeNotFound {
				return nil, fmt.Errorf("read experiment: %w", err)
			}
			name = e.Name
			names[m.Experiment] = name
		}
		out = append(out, exposureView{Experiment: name, Variant: m.Variant, What: what, At: m.At})
	}
	return out, nil
}

func (s *Service) breachChecks(ctx context.Context, userID string) ([]breachView, error) {
	c, ok, err := s.o.Breach.OfUser(ctx, userID)
	if err != nil || !ok {
		return []breachView{}, err
	}
	return []breachView{{CheckedAt: c.CheckedAt, Breaches: orEmpty(c.Names), SampleData: c.Sample}}, nil
}

func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
