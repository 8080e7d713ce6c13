package privacy

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"glimpse/engine"
	"glimpse/engine/auth"
	"glimpse/engine/breach"
	"glimpse/engine/experiment"
	"glimpse/engine/mail"
	"glimpse/engine/retention"
	"glimpse/engine/store"
)

// Statuses of an export.
const (
	ExportQueued = "queued"
	ExportReady  = "ready"
	ExportFailed = "failed"
)

// ExportWindow is how often a person may ask for a new export: one request
// per window (a unique claim), so a double tap or a script builds one.
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
	ID          string    `bson:"_id"`
	UserID      string    `bson:"userId"`
	Brand       string    `bson:"brand"`
	Status      string    `bson:"status"`
	RequestedAt time.Time `bson:"requestedAt"`
	ReadyAt     time.Time `bson:"readyAt,omitzero"`
	// ExpiresAt is when the export and its links are deleted.
	ExpiresAt time.Time `bson:"expiresAt"`
	Size      int64     `bson:"size,omitempty"`
	Chunks    int       `bson:"chunks,omitempty"`
}

// exportKey is a download key, stored by its SHA-256.
type exportKey struct {
	ID        string    `bson:"_id"`
	ExportID  string    `bson:"exportId"`
	UserID    string    `bson:"userId"`
	ExpiresAt time.Time `bson:"expiresAt"`
}

type exportChunk struct {
	ID       string `bson:"_id"`
	ExportID string `bson:"exportId"`
	Data     []byte `bson:"data"`
}

// RequestExport queues an export of everything held about the person; the
// export job builds it (RunExports) and mails the link. One request per
// person per ExportWindow counts: the others get ErrExportRecent.
func (s *Service) RequestExport(ctx context.Context, userID, brandKey string) (Export, error) {
	now := s.now()
	ok, err := s.claims.Take(ctx, "privacy-export-request:"+userID+":"+store.Window(now, ExportWindow), "", now.Add(ExportWindow))
	if err != nil {
		return Export{}, fmt.Errorf("request export: %w", err)
	}
	if !ok {
		return Export{}, ErrExportRecent
	}
	e := Export{ID: engine.NewID(), UserID: userID, Brand: brandKey, Status: ExportQueued, RequestedAt: now,
		ExpiresAt: now.Add(s.o.ExportLifetime)}
	if _, err := s.db.Collection(ExportsCollection).InsertOne(ctx, e); err != nil {
		return Export{}, fmt.Errorf("request export: %w", err)
	}
	select {
	case s.wake <- struct{}{}:
	default:
	}
	return e, nil
}

// LatestExport returns the person's newest export that has not expired.
func (s *Service) LatestExport(ctx context.Context, userID string) (Export, bool, error) {
	var e Export
	err := s.db.Collection(ExportsCollection).FindOne(ctx, bson.M{"userId": userID, "expiresAt": bson.M{"$gt": s.now()}},
		options.FindOne().SetSort(bson.D{{Key: "requestedAt", Value: -1}})).Decode(&e)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return Export{}, false, nil
	}
	if err != nil {
		return Export{}, false, fmt.Errorf("latest export: %w", err)
	}
	return e, true, nil
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
	k := exportKey{ID: engine.HashToken(token), ExportID: e.ID, UserID: e.UserID, ExpiresAt: expires}
	if _, err := s.db.Collection(ExportKeysCollection).InsertOne(ctx, k); err != nil {
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
	var k exportKey
	err := s.db.Collection(ExportKeysCollection).FindOne(ctx, bson.M{"_id": engine.HashToken(key)}).Decode(&k)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return Export{}, nil, ErrExportLink
	}
	if err != nil {
		return Export{}, nil, fmt.Errorf("download export: %w", err)
	}
	if subtle.ConstantTimeCompare([]byte(k.UserID), []byte(userID)) != 1 || !s.now().Before(k.ExpiresAt) {
		return Export{}, nil, ErrExportLink
	}
	var e Export
	if err := s.db.Collection(ExportsCollection).FindOne(ctx, bson.M{"_id": k.ExportID}).Decode(&e); err != nil {
		if errors.Is(err, mongo.ErrNoDocuments) {
			return Export{}, nil, ErrExportLink
		}
		return Export{}, nil, fmt.Errorf("download export: %w", err)
	}
	if e.Status != ExportReady || !s.now().Before(e.ExpiresAt) {
		return Export{}, nil, ErrExportLink
	}
	data := make([]byte, 0, e.Size)
	for i := range e.Chunks {
		var c exportChunk
		if err := s.db.Collection(ExportChunksCollection).FindOne(ctx, bson.M{"_id": chunkID(e.ID, i)}).Decode(&c); err != nil {
			return Export{}, nil, fmt.Errorf("download export part %d: %w", i, err)
		}
		data = append(data, c.Data...)
	}
	return e, data, nil
}

func chunkID(exportID string, i int) string { return exportID + ":" + strconv.Itoa(i) }

// exportLease is how long a builder holds an export; one that dies leaves
// the export to be built again once the claim has expired and been swept.
const exportLease = 15 * time.Minute

// BuildPending builds every queued export it can claim and returns how many
// it built. Any number of instances may run it: each export is claimed by a
// unique insert, so one builds it.
func (s *Service) BuildPending(ctx context.Context) (int, error) {
	cur, err := s.db.Collection(ExportsCollection).Find(ctx, bson.M{"status": ExportQueued})
	if err != nil {
		return 0, fmt.Errorf("find queued exports: %w", err)
	}
	var queued []Export
	if err := cur.All(ctx, &queued); err != nil {
		return 0, fmt.Errorf("find queued exports: %w", err)
	}
	built := 0
	for _, e := range queued {
		ok, err := s.claims.Take(ctx, "privacy-export-build:"+e.ID, s.owner, s.now().Add(exportLease))
		if err != nil {
			return built, err
		}
		if !ok {
			continue
		}
		if err := s.build(ctx, e); err != nil {
			s.o.Logger.Error("build data export", "export", e.ID, "error", err)
			if _, uerr := s.db.Collection(ExportsCollection).UpdateOne(ctx, bson.M{"_id": e.ID},
				bson.M{"$set": bson.M{"status": ExportFailed}}); uerr != nil {
				return built, uerr
			}
			continue
		}
		built++
	}
	return built, nil
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
	n := 0
	for start := 0; start < len(zipped) || n == 0; start += exportChunkSize {
		part := zipped[start:min(start+exportChunkSize, len(zipped))]
		c := exportChunk{ID: chunkID(e.ID, n), ExportID: e.ID, Data: part}
		if _, err := s.db.Collection(ExportChunksCollection).ReplaceOne(ctx, bson.M{"_id": c.ID}, c,
			options.Replace().SetUpsert(true)); err != nil {
			return fmt.Errorf("store export part: %w", err)
		}
		n++
	}
	now := s.now()
	if _, err := s.db.Collection(ExportsCollection).UpdateOne(ctx, bson.M{"_id": e.ID}, bson.M{"$set": bson.M{
		"status": ExportReady, "readyAt": now, "size": int64(len(zipped)), "chunks": n}}); err != nil {
		return fmt.Errorf("mark export ready: %w", err)
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

// file is one document of the archive.
type file struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	data        any
}

// Archive builds the ZIP of everything held about the person: one JSON
// document per kind of data, a manifest.json and a README.txt naming and
// describing each file. Password hashes, tokens and other people's data
// are left out.
func (s *Service) Archive(ctx context.Context, u auth.User) ([]byte, error) {
	files, err := s.collect(ctx, u)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	now := s.now()
	var readme strings.Builder
	readme.WriteString("Your data from Glimpse\n======================\n\n")
	readme.WriteString("Generated " + now.Format(time.RFC3339) + " for " + u.Email + ".\n")
	readme.WriteString("Every file is JSON (UTF-8); times are ISO 8601 in UTC, amounts are in the currency's\n")
	readme.WriteString("smallest unit (cents). Passwords and access tokens are never included.\n\nFiles:\n\n")
	for _, f := range files {
		readme.WriteString("- " + f.Name + ": " + f.Description + "\n")
	}
	manifest := map[string]any{"generatedAt": now, "account": u.ID, "files": files}
	all := append([]file{{Name: "README.txt", data: readme.String()}, {Name: "manifest.json", data: manifest}}, files...)
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

// collect reads everything held about the person, file by file.
func (s *Service) collect(ctx context.Context, u auth.User) ([]file, error) {
	subs, err := s.subscriptionsOf(ctx, u)
	if err != nil {
		return nil, err
	}
	var plans, purchases []map[string]any
	var history []any
	subIDs := make([]string, 0, len(subs))
	emails := []string{u.Email}
	for _, sub := range subs {
		subIDs = append(subIDs, sub.ID)
		// The card's brand and last four digits are the person's; the
		// provider's references to it are not theirs to use.
		sub.PaymentMethod.ID, sub.PaymentMethod.Customer = "", ""
		doc, err := plain(sub)
		if err != nil {
			return nil, err
		}
		if sub.MainPlan {
			plans = append(plans, doc)
		} else {
			purchases = append(purchases, doc)
		}
		h, err := s.o.Billing.History(ctx, sub.ID)
		if err != nil {
			return nil, err
		}
		for _, c := range h {
			history = append(history, c)
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
	receipts, err := s.receiptMails(ctx, charges)
	if err != nil {
		return nil, err
	}
	mails, err := s.o.Mail.To(ctx, emails, receipts)
	if err != nil {
		return nil, err
	}
	sentMail := make([]map[string]any, 0, len(mails))
	for _, m := range mails {
		// The bodies are left out: a link in one may still work, and an
		// export is a file people keep and pass around.
		sentMail = append(sentMail, map[string]any{"id": m.ID, "to": m.To, "template": m.Template, "subject": m.Subject,
			"status": m.Status, "createdAt": m.CreatedAt, "sentAt": m.SentAt})
	}
	attempts, steps, err := s.cancelAttempts(ctx, u.ID)
	if err != nil {
		return nil, err
	}
	recorded, err := s.o.Events.OfUser(ctx, u.ID)
	if err != nil {
		return nil, err
	}
	events := make([]map[string]any, 0, len(recorded))
	for _, e := range recorded {
		doc, err := plain(e)
		if err != nil {
			return nil, err
		}
		events = append(events, doc)
	}
	exposureIDs, err := experiment.PersonDocIDs(ctx, s.db, u.ID)
	if err != nil {
		return nil, err
	}
	exposures, err := s.rawByID(ctx, experiment.PeopleCollection, exposureIDs)
	if err != nil {
		return nil, err
	}
	breaches, err := s.rawByID(ctx, breach.ChecksCollection, []string{u.ID})
	if err != nil {
		return nil, err
	}
	prof, snaps, err := s.instagramData(ctx, u.ID)
	if err != nil {
		return nil, err
	}
	return []file{
		{"account.json", "Your account: its id, email address and when it was created. The password is stored only as a one-way hash and is not included.",
			map[string]any{"id": u.ID, "email": u.Email, "createdAt": u.CreatedAt, "disabled": u.Disabled}},
		{"subscriptions.json", "Your plans: plan, price, status, periods, cancellation and the card used (brand and last four digits only).", orEmpty(plans)},
		{"purchases.json", "One-time purchases (add-ons such as the course or the profile report).", orEmpty(purchases)},
		{"subscription_history.json", "Every change to your plans and purchases: when, what and from what to what.", orEmpty(history)},
		{"charges.json", "Every payment taken or attempted: amount, status, date and the payment provider's reference.", orEmpty(charges)},
		{"cancel_attempts.json", "Each time you opened the cancellation flow: where you started, and each step, answer, offer and outcome.",
			map[string]any{"attempts": attempts, "steps": steps}},
		{"mails.json", "Every mail we sent you or queued for you: subject, kind, status and times (bodies left out; their links may still work).", sentMail},
		{"events.json", "Usage events recorded while you used the app (screens, buttons), kept for 180 days.", events},
		{"experiments.json", "The variants of product experiments you were shown.", exposures},
		{"instagram_profile.json", "Your connected Instagram profile (username, status, snapshot list and the latest analysis). The access token is not included.", prof},
		{"instagram_snapshots.json", "Each stored snapshot of your profile: follower and following lists and posts.", snaps},
		{"breach_checks.json", "Your last data-breach check: which breaches your address appears in and when it was checked.", breaches},
	}, nil
}

func (s *Service) instagramData(ctx context.Context, userID string) (any, []any, error) {
	p, err := s.o.Profiles.Get(ctx, userID)
	if err != nil {
		return nil, nil, err
	}
	p.Credential = ""
	snaps := []any{}
	for _, ref := range p.Snapshots {
		snap, err := s.o.Profiles.Snapshot(ctx, ref.ID)
		if err != nil {
			return nil, nil, err
		}
		snaps = append(snaps, snap)
	}
	return p, snaps, nil
}

// cancelAttempts reads the person's cancel attempts and each one's events,
// by _id through their list.
func (s *Service) cancelAttempts(ctx context.Context, userID string) (attempts, steps []map[string]any, err error) {
	ids, err := retention.AttemptIDsOf(ctx, s.db, userID)
	if err != nil {
		return nil, nil, err
	}
	listed, err := s.rawByID(ctx, retention.AttemptsCollection, ids)
	if err != nil {
		return nil, nil, err
	}
	attempts, steps = []map[string]any{}, []map[string]any{}
	for _, a := range listed {
		id, _ := a["_id"].(string)
		if owner, _ := a["userId"].(string); owner != userID {
			continue // not theirs: a slot the list's rule says to skip
		}
		attempts = append(attempts, a)
		stepIDs, err := retention.StepIDsOf(ctx, s.db, id)
		if err != nil {
			return nil, nil, err
		}
		events, err := s.rawByID(ctx, retention.StepsCollection, stepIDs)
		if err != nil {
			return nil, nil, err
		}
		steps = append(steps, events...)
	}
	return attempts, steps, nil
}

// rawByID reads the documents with these _ids that exist, in that order,
// as plain JSON-ready values.
func (s *Service) rawByID(ctx context.Context, coll string, ids []string) ([]map[string]any, error) {
	out := make([]map[string]any, 0, len(ids))
	for _, id := range ids {
		d, err := s.db.Collection(coll).FindOne(ctx, bson.M{"_id": id}).Raw()
		if errors.Is(err, mongo.ErrNoDocuments) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", coll, err)
		}
		m, err := plainRaw(d)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

// plain turns a stored value into a JSON-ready map with the stored field
// names, as the database holds it.
func plain(v any) (map[string]any, error) {
	b, err := bson.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	return plainRaw(b)
}

func plainRaw(b bson.Raw) (map[string]any, error) {
	var d bson.D
	if err := bson.Unmarshal(b, &d); err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	m, _ := jsonValue(d).(map[string]any)
	return m, nil
}

// jsonValue converts BSON's Go values to those encoding/json writes well:
// documents to objects, dates to ISO 8601 strings.
func jsonValue(v any) any {
	switch x := v.(type) {
	case bson.D:
		m := make(map[string]any, len(x))
		for _, e := range x {
			m[e.Key] = jsonValue(e.Value)
		}
		return m
	case bson.M:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = jsonValue(e)
		}
		return m
	case bson.A:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = jsonValue(e)
		}
		return out
	case bson.DateTime:
		return x.Time().UTC()
	case bson.Binary:
		return x.Data
	default:
		return v
	}
}

func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
