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

	"glimpse/engine"
	"glimpse/engine/auth"
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
	Email        string
	Role         string
	PasswordHash string
	CreatedAt    time.Time
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

// Session is a signed-in member's session, keyed by its token's hash.
type Session struct {
	ID    string // engine.HashToken of the token
	Email string
	// Credential fingerprints the password hash the session was opened
	// with, so a reset ends a session even if it was opened by a sign-in
	// that raced the reset's deletion of the member's sessions.
	Credential string
	ExpiresAt  time.Time
}

// LiveFor reports whether the session admits m at now: unexpired, and
// opened with m's current password.
func (sess Session) LiveFor(m Member, now time.Time) bool {
	return now.Before(sess.ExpiresAt) && sess.Credential == credentialOf(m)
}

func credentialOf(m Member) string { return engine.HashToken(m.PasswordHash) }

// ErrNoMember is an Accounts store's answer for an email with no member.
var ErrNoMember = errors.New("staff: no such member")

// Accounts is what the staff service needs from storage.
type Accounts interface {
	// PutMember creates the member or replaces the one with its email, and
	// deletes every session of that email (in one transaction where the
	// engine has them; otherwise a retry completes it, and Session.LiveFor
	// refuses a session of the old password meanwhile).
	PutMember(ctx context.Context, m Member) error
	// RemoveMember deletes the member and every session of the email, and
	// says whether there was a member.
	RemoveMember(ctx context.Context, email string) (bool, error)
	// Member returns the member with the email, or ErrNoMember.
	Member(ctx context.Context, email string) (Member, error)
	// OpenSession stores a new session.
	OpenSession(ctx context.Context, sess Session) error
	// Session returns the session with the id, or ErrNoSession.
	Session(ctx context.Context, id string) (Session, error)
	// EndSession deletes the session with the id, if there is one.
	EndSession(ctx context.Context, id string) error
	// DeleteExpiredSessions deletes the sessions expired by now and says
	// how many.
	DeleteExpiredSessions(ctx context.Context, now time.Time) (int64, error)
}

// Service manages staff accounts and sessions.
type Service struct {
	accounts Accounts
	clock    engine.Clock
	hasher   *auth.Hasher
	limiter  *auth.Limiter
}

// NewService returns the staff service over accounts. Staff sign-in has the
// subscribers' limits (auth.Limits), counted apart from theirs by limiter
// (its own prefix): a studio password opens every brand's copy, so it needs
// them at least as much.
func NewService(accounts Accounts, clock engine.Clock, hasher *auth.Hasher, limiter *auth.Limiter) *Service {
	return &Service{accounts: accounts, clock: clock, hasher: hasher, limiter: limiter}
}

// Limiter returns the sign-in limiter, for tests to change its limits.
func (s *Service) Limiter() *auth.Limiter { return s.limiter }

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
	if err := s.accounts.PutMember(ctx, m); err != nil {
		return fmt.Errorf("add staff member: %w", err)
	}
	return nil
}

// Remove deletes a staff account and ends all its sessions.
func (s *Service) Remove(ctx context.Context, email string) error {
	email = auth.NormaliseEmail(email)
	found, err := s.accounts.RemoveMember(ctx, email)
	if err != nil {
		return fmt.Errorf("remove staff member: %w", err)
	}
	if !found {
		return engine.Errorf(engine.CodeNotFound, "There is no staff member %s.", email)
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
	m, err := s.accounts.Member(ctx, email)
	if err != nil && !errors.Is(err, ErrNoMember) {
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
	sess := Session{ID: engine.HashToken(token), Email: m.Email, Credential: credentialOf(m),
		ExpiresAt: s.clock.Now().Add(SessionLifetime)}
	if err := s.accounts.OpenSession(ctx, sess); err != nil {
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
	sess, err := s.accounts.Session(ctx, engine.HashToken(token))
	if errors.Is(err, ErrNoSession) {
		return Member{}, ErrNoSession
	}
	if err != nil {
		return Member{}, fmt.Errorf("find staff session: %w", err)
	}
	m, err := s.accounts.Member(ctx, sess.Email)
	if errors.Is(err, ErrNoMember) {
		return Member{}, ErrNoSession // the member was removed
	}
	if err != nil {
		return Member{}, fmt.Errorf("find staff member: %w", err)
	}
	if !sess.LiveFor(m, s.clock.Now()) {
		return Member{}, ErrNoSession // expired, or the password was reset since
	}
	return m, nil
}

// SignOut ends a staff session.
func (s *Service) SignOut(ctx context.Context, token string) error {
	if err := s.accounts.EndSession(ctx, engine.HashToken(token)); err != nil {
		return fmt.Errorf("staff sign out: %w", err)
	}
	return nil
}

// Sweep deletes expired staff sessions so that they do not pile up.
func (s *Service) Sweep(ctx context.Context) (int64, error) {
	n, err := s.accounts.DeleteExpiredSessions(ctx, s.clock.Now())
	if err != nil {
		return n, fmt.Errorf("sweep staff sessions: %w", err)
	}
	return n, nil
}
