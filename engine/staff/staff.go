// Package staff holds the accounts of the people who run Glimpse: editors
// (content and copy), testers (experiments), support (the support desk) and
// admins. They are separate
// from subscribers, with their own sessions and cookie; subscribers have no
// staff powers.
package staff

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"glimpse/engine"
	"glimpse/engine/auth"
	"glimpse/engine/store"
)

// Roles.
const (
	RoleEditor = "editor"
	RoleTester = "tester"
	// RoleSupport looks subscribers up and acts for them (refunds,
	// cancellations) at the support desk, and opens nothing else of the
	// studio: content and experiments are not theirs to see.
	RoleSupport = "support"
	RoleAdmin   = "admin"
)

// RoleExperimenter is not a role a member holds but the one the experiment
// actions need (Member.Can): testers and admins run experiments, editors may
// not.
const RoleExperimenter = "experimenter"

// Collections of this package.
const (
	MembersCollection  = "staff"
	SessionsCollection = "staff_sessions"
)

// SessionLifetime is a staff session's absolute lifetime: a working day.
const SessionLifetime = 8 * time.Hour

// ErrInvalidCredential answers any failed staff sign-in alike.
var ErrInvalidCredential = engine.Errorf(engine.CodeUnauthenticated, "The email or password is not right.")

// ErrNoSession means the staff cookie names no live session.
var ErrNoSession = engine.Errorf(engine.CodeUnauthenticated, "Please sign in to the studio.")

// ErrForbidden refuses a signed-in member whose role may not do what was
// asked (Admit).
var ErrForbidden = engine.Errorf(engine.CodeForbidden, "Your studio role may not do this.")

// ErrTooManyRequests refuses a client over a sign-in limit; it is the
// subscribers' error, so screens map both alike.
var ErrTooManyRequests = auth.ErrTooManyRequests

// Member is a staff account, keyed by its normalised email.
type Member struct {
	Email        string    `bson:"_id"`
	Role         string    `bson:"role"`
	PasswordHash string    `bson:"passwordHash"`
	CreatedAt    time.Time `bson:"createdAt"`
}

// CanEdit reports whether the member may change content and copy.
func (m Member) CanEdit() bool { return m.Role == RoleEditor || m.Role == RoleAdmin }

// CanSupport reports whether the member may use the support desk: support
// and admins.
func (m Member) CanSupport() bool { return m.Role == RoleSupport || m.Role == RoleAdmin }

// CanStudio reports whether the member may look at the studio's content and
// experiment screens: everyone but support.
func (m Member) CanStudio() bool {
	return m.Role == RoleEditor || m.Role == RoleTester || m.Role == RoleAdmin
}

// CanExperiment reports whether the member may create, start, pause and stop
// A/B experiments and read their results: testers and admins, not editors.
func (m Member) CanExperiment() bool { return m.Role == RoleTester || m.Role == RoleAdmin }

// Can reports whether the member holds role, as an action names it:
// RoleTester is any member of the studio's content side (CanStudio: not
// support), RoleEditor editors and admins, RoleExperimenter testers and
// admins, RoleSupport support and admins, RoleAdmin admins. A role this
// does not know admits no one, so a typo in a table of actions fails closed.
func (m Member) Can(role string) bool {
	switch role {
	case RoleTester:
		return m.CanStudio()
	case RoleSupport:
		return m.CanSupport()
	case RoleEditor:
		return m.CanEdit()
	case RoleExperimenter:
		return m.CanExperiment()
	case RoleAdmin:
		return m.Role == RoleAdmin
	}
	return false
}

type session struct {
	ID    string `bson:"_id"`
	Email string `bson:"email"`
	// Credential fingerprints the password hash the session was opened
	// with, so a reset ends a session even if it was opened by a sign-in
	// that raced the reset's deletion of the member's sessions.
	Credential string    `bson:"credential"`
	ExpiresAt  time.Time `bson:"expiresAt"`
}

// Service manages staff accounts and sessions.
type Service struct {
	db      *mongo.Database
	clock   engine.Clock
	hasher  *auth.Hasher
	limiter *auth.Limiter
}

// NewService returns the staff service over db. Staff sign-in has the
// subscribers' limits (auth.Limits), counted apart from theirs: a studio
// password opens every brand's copy, so it needs them at least as much.
func NewService(db *mongo.Database, clock engine.Clock, hasher *auth.Hasher) *Service {
	return &Service{db: db, clock: clock, hasher: hasher,
		// Until staff's own storage moves (#33), engine/app gives the
		// limiter the deployment's auth counters (Limiter.UseCounters).
		limiter: auth.NewLimiter(nil, clock, "staff", auth.DefaultLimits)}
}

// Limiter returns the sign-in limiter, for tests to change its limits.
func (s *Service) Limiter() *auth.Limiter { return s.limiter }

// Collections lists this package's collections for the store to create.
// Sessions are indexed by email so that a reset or removal ends them all.
func Collections() map[string][]mongo.IndexModel {
	return map[string][]mongo.IndexModel{MembersCollection: nil,
		SessionsCollection: {{Keys: bson.D{{Key: "email", Value: 1}}}}}
}

// Add creates a staff account with a new random password, or resets the
// role and password of an existing one, and returns the password to hand
// over. It is shown once and stored only hashed.
func (s *Service) Add(ctx context.Context, email, role string) (string, error) {
	password := engine.NewToken()[:20]
	return password, s.Put(ctx, email, role, password)
}

// Put creates or resets a staff account with a given password (the demo
// editor of `make run`). A reset ends every session of the member, since a
// password is reset when it may be known to someone else.
func (s *Service) Put(ctx context.Context, email, role, password string) error {
	switch role {
	case RoleEditor, RoleTester, RoleSupport, RoleAdmin:
	default:
		return fmt.Errorf("role must be editor, tester, support or admin, got %q", role)
	}
	email = auth.NormaliseEmail(email)
	if !strings.Contains(email, "@") {
		return fmt.Errorf("%q is not an email address", email)
	}
	hash, err := s.hasher.Hash(ctx, password)
	if err != nil {
		return err
	}
	m := Member{Email: email, Role: role, PasswordHash: hash, CreatedAt: s.clock.Now()}
	if _, err := s.db.Collection(MembersCollection).ReplaceOne(ctx, bson.M{"_id": email}, m,
		options.Replace().SetUpsert(true)); err != nil {
		return fmt.Errorf("add staff member: %w", err)
	}
	return s.endSessions(ctx, email)
}

// Remove deletes a staff account and ends all its sessions. The sessions go
// after the account, so a sign-in racing the removal finds no account to
// open a session for.
func (s *Service) Remove(ctx context.Context, email string) error {
	email = auth.NormaliseEmail(email)
	res, err := s.db.Collection(MembersCollection).DeleteOne(ctx, bson.M{"_id": email})
	if err != nil {
		return fmt.Errorf("remove staff member: %w", err)
	}
	if err := s.endSessions(ctx, email); err != nil {
		return err
	}
	if res.DeletedCount == 0 {
		return engine.Errorf(engine.CodeNotFound, "There is no staff member %s.", email)
	}
	return nil
}

// endSessions deletes every session of a member. Authenticate reads the
// database on every request (there is no session cache), so they end on
// every instance at once.
func (s *Service) endSessions(ctx context.Context, email string) error {
	if _, err := s.db.Collection(SessionsCollection).DeleteMany(ctx, bson.M{"email": email}); err != nil {
		return fmt.Errorf("end staff sessions of %s: %w", email, err)
	}
	return nil
}

// SignIn checks a staff member's password and opens a session, returning
// its token. ip is the client the limits count per; the attempt is reserved
// before the password is hashed, so parallel guesses cannot outrun the
// limit. Unknown emails cost the same time as wrong passwords.
func (s *Service) SignIn(ctx context.Context, email, password, ip string) (string, error) {
	email = auth.NormaliseEmail(email)
	attempt, err := s.limiter.Reserve(ctx, email, ip)
	if err != nil {
		return "", err
	}
	var m Member
	err = s.db.Collection(MembersCollection).FindOne(ctx, bson.M{"_id": email}).Decode(&m)
	if err != nil && !errors.Is(err, mongo.ErrNoDocuments) {
		attempt.Abandon(ctx)
		return "", fmt.Errorf("staff sign in: %w", err)
	}
	ok, err := s.hasher.Verify(ctx, m.PasswordHash, password)
	if err != nil {
		attempt.Abandon(ctx)
		return "", fmt.Errorf("staff sign in: %w", err)
	}
	if !ok {
		return "", ErrInvalidCredential // the reservation stays: it was a failure
	}
	if err := attempt.Succeeded(ctx); err != nil {
		return "", err
	}
	token := engine.NewToken()
	sess := session{ID: engine.HashToken(token), Email: m.Email, Credential: engine.HashToken(m.PasswordHash),
		ExpiresAt: s.clock.Now().Add(SessionLifetime)}
	if _, err := s.db.Collection(SessionsCollection).InsertOne(ctx, sess); err != nil {
		return "", fmt.Errorf("open staff session: %w", err)
	}
	return token, nil
}

// SignInReplacing signs in as SignIn does and then ends the session of
// previous, the token the browser held before (if any): a sign-in always
// gets a fresh token, and the old one is not left valid.
func (s *Service) SignInReplacing(ctx context.Context, email, password, ip, previous string) (string, error) {
	token, err := s.SignIn(ctx, email, password, ip)
	if err != nil {
		return "", err
	}
	if previous != "" {
		if err := s.SignOut(ctx, previous); err != nil {
			return "", err
		}
	}
	return token, nil
}

// Admit returns the member a session token stands for when that member
// holds role (Member.Can): ErrNoSession without a live session,
// ErrForbidden for a member whose role falls short.
func (s *Service) Admit(ctx context.Context, token, role string) (Member, error) {
	m, err := s.Authenticate(ctx, token)
	if err != nil {
		return Member{}, err
	}
	if !m.Can(role) {
		return Member{}, ErrForbidden
	}
	return m, nil
}

// Authenticate returns the member a session token stands for.
func (s *Service) Authenticate(ctx context.Context, token string) (Member, error) {
	if token == "" {
		return Member{}, ErrNoSession
	}
	var sess session
	err := s.db.Collection(SessionsCollection).FindOne(ctx, bson.M{"_id": engine.HashToken(token)}).Decode(&sess)
	if errors.Is(err, mongo.ErrNoDocuments) || (err == nil && !s.clock.Now().Before(sess.ExpiresAt)) {
		return Member{}, ErrNoSession
	}
	if err != nil {
		return Member{}, fmt.Errorf("find staff session: %w", err)
	}
	var m Member
	err = s.db.Collection(MembersCollection).FindOne(ctx, bson.M{"_id": sess.Email}).Decode(&m)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return Member{}, ErrNoSession // the member was removed
	}
	if err != nil {
		return Member{}, fmt.Errorf("find staff member: %w", err)
	}
	if sess.Credential != engine.HashToken(m.PasswordHash) {
		return Member{}, ErrNoSession // the password was reset since
	}
	return m, nil
}

// SignOut ends a staff session.
func (s *Service) SignOut(ctx context.Context, token string) error {
	if _, err := s.db.Collection(SessionsCollection).DeleteOne(ctx, bson.M{"_id": engine.HashToken(token)}); err != nil {
		return fmt.Errorf("staff sign out: %w", err)
	}
	return nil
}

// Sweep deletes expired staff sessions so the collection does not grow
// without bound. It scans, so run it now and then, never per request.
func (s *Service) Sweep(ctx context.Context) (int64, error) {
	n, err := store.DeleteMatching(ctx, s.db.Collection(SessionsCollection), bson.M{"expiresAt": bson.M{"$lt": s.clock.Now()}})
	if err != nil {
		return n, fmt.Errorf("sweep staff sessions: %w", err)
	}
	return n, nil
}
