// Package staff holds the accounts of the people who run Glimpse: editors
// (content and copy), testers (experiments) and admins. They are separate
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
)

// Roles.
const (
	RoleEditor = "editor"
	RoleTester = "tester"
	RoleAdmin  = "admin"
)

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

// Member is a staff account, keyed by its normalised email.
type Member struct {
	Email        string    `bson:"_id"`
	Role         string    `bson:"role"`
	PasswordHash string    `bson:"passwordHash"`
	CreatedAt    time.Time `bson:"createdAt"`
}

// CanEdit reports whether the member may change content and copy.
func (m Member) CanEdit() bool { return m.Role == RoleEditor || m.Role == RoleAdmin }

type session struct {
	ID        string    `bson:"_id"`
	Email     string    `bson:"email"`
	ExpiresAt time.Time `bson:"expiresAt"`
}

// Service manages staff accounts and sessions.
type Service struct {
	db     *mongo.Database
	clock  engine.Clock
	hasher *auth.Hasher
}

// NewService returns the staff service over db.
func NewService(db *mongo.Database, clock engine.Clock, hasher *auth.Hasher) *Service {
	return &Service{db: db, clock: clock, hasher: hasher}
}

// Collections lists this package's collections for the store to create.
func Collections() map[string][]mongo.IndexModel {
	return map[string][]mongo.IndexModel{MembersCollection: nil, SessionsCollection: nil}
}

// Add creates a staff account with a new random password, or resets the
// role and password of an existing one, and returns the password to hand
// over. It is shown once and stored only hashed.
func (s *Service) Add(ctx context.Context, email, role string) (string, error) {
	password := engine.NewToken()[:20]
	return password, s.Put(ctx, email, role, password)
}

// Put creates or resets a staff account with a given password (the demo
// editor of `make run`).
func (s *Service) Put(ctx context.Context, email, role, password string) error {
	switch role {
	case RoleEditor, RoleTester, RoleAdmin:
	default:
		return fmt.Errorf("role must be editor, tester or admin, got %q", role)
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
	return nil
}

// SignIn checks a staff member's password and opens a session, returning
// its token. Unknown emails cost the same time as wrong passwords.
func (s *Service) SignIn(ctx context.Context, email, password string) (string, error) {
	var m Member
	err := s.db.Collection(MembersCollection).FindOne(ctx, bson.M{"_id": auth.NormaliseEmail(email)}).Decode(&m)
	if err != nil && !errors.Is(err, mongo.ErrNoDocuments) {
		return "", fmt.Errorf("staff sign in: %w", err)
	}
	ok, err := s.hasher.Verify(ctx, m.PasswordHash, password)
	if err != nil {
		return "", fmt.Errorf("staff sign in: %w", err)
	}
	if !ok {
		return "", ErrInvalidCredential
	}
	token := engine.NewToken()
	sess := session{ID: engine.HashToken(token), Email: m.Email, ExpiresAt: s.clock.Now().Add(SessionLifetime)}
	if _, err := s.db.Collection(SessionsCollection).InsertOne(ctx, sess); err != nil {
		return "", fmt.Errorf("open staff session: %w", err)
	}
	return token, nil
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
	if err := s.db.Collection(MembersCollection).FindOne(ctx, bson.M{"_id": sess.Email}).Decode(&m); err != nil {
		return Member{}, ErrNoSession
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
