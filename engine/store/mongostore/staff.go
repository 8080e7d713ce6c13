package mongostore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"glimpse/engine/staff"
)

// staffCollection holds staff members by email (_id).
var staffCollection = collection{name: "staff"}

// staffSessionsCollection holds staff sessions by token hash (_id), found by
// email when a reset or removal ends them, and deleted by MongoDB once
// expired (TTL; DeleteExpiredSessions does the same at once).
var staffSessionsCollection = collection{name: "staff_sessions", indexes: []index{
	{name: "by_email", keys: bson.D{{Key: "email", Value: 1}}},
	{name: "expiry", keys: bson.D{{Key: "expiresAt", Value: 1}}, expires: true},
}}

type staffMemberDoc struct {
	Email        string    `bson:"_id"`
	Role         string    `bson:"role"`
	PasswordHash string    `bson:"passwordHash"`
	CreatedAt    time.Time `bson:"createdAt"`
}

type staffSessionDoc struct {
	ID         string    `bson:"_id"`
	Email      string    `bson:"email"`
	Credential string    `bson:"credential"`
	ExpiresAt  time.Time `bson:"expiresAt"`
}

// StaffAccounts stores staff members and sessions in MongoDB.
type StaffAccounts struct {
	members, sessions *mongo.Collection
	// betweenWrites runs between the two writes of PutMember and
	// RemoveMember; the crash tests stop them there.
	betweenWrites func() error
}

// NewStaffAccounts returns staff's storage on db.
func NewStaffAccounts(db *mongo.Database) *StaffAccounts {
	return &StaffAccounts{members: db.Collection(staffCollection.name), sessions: db.Collection(staffSessionsCollection.name),
		betweenWrites: func() error { return nil }}
}

var _ staff.Accounts = (*StaffAccounts)(nil)

// PutMember replaces the member (an upsert by _id), then deletes its
// sessions. A reset stopped in between leaves sessions of the old password,
// which staff.Session.LiveFor refuses, and its retry deletes them.
func (s *StaffAccounts) PutMember(ctx context.Context, m staff.Member) error {
	if _, err := s.members.ReplaceOne(ctx, bson.D{{Key: "_id", Value: m.Email}}, staffMemberDoc(m), options.Replace().SetUpsert(true)); err != nil {
		return fmt.Errorf("put staff member %s: %w", m.Email, err)
	}
	if err := s.betweenWrites(); err != nil {
		return err
	}
	return s.endSessionsOf(ctx, m.Email)
}

// RemoveMember deletes the member, then its sessions. A removal stopped in
// between leaves sessions that admit no one (their member is gone), and its
// retry deletes them.
func (s *StaffAccounts) RemoveMember(ctx context.Context, email string) (bool, error) {
	res, err := s.members.DeleteOne(ctx, bson.D{{Key: "_id", Value: email}})
	if err != nil {
		return false, fmt.Errorf("remove staff member %s: %w", email, err)
	}
	if err := s.betweenWrites(); err != nil {
		return false, err
	}
	return res.DeletedCount > 0, s.endSessionsOf(ctx, email)
}

func (s *StaffAccounts) endSessionsOf(ctx context.Context, email string) error {
	if _, err := s.sessions.DeleteMany(ctx, bson.D{{Key: "email", Value: email}}); err != nil {
		return fmt.Errorf("end staff sessions of %s: %w", email, err)
	}
	return nil
}

// Member returns the member with the email, or staff.ErrNoMember.
func (s *StaffAccounts) Member(ctx context.Context, email string) (staff.Member, error) {
	var d staffMemberDoc
	err := s.members.FindOne(ctx, bson.D{{Key: "_id", Value: email}}).Decode(&d)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return staff.Member{}, staff.ErrNoMember
	}
	if err != nil {
		return staff.Member{}, fmt.Errorf("staff member %s: %w", email, err)
	}
	m := staff.Member(d)
	m.CreatedAt = d.CreatedAt.UTC()
	return m, nil
}

// OpenSession stores a new session.
func (s *StaffAccounts) OpenSession(ctx context.Context, sess staff.Session) error {
	if _, err := s.sessions.InsertOne(ctx, staffSessionDoc(sess)); err != nil {
		return fmt.Errorf("open staff session: %w", err)
	}
	return nil
}

// Session returns the session with the id, or staff.ErrNoSession.
func (s *StaffAccounts) Session(ctx context.Context, id string) (staff.Session, error) {
	var d staffSessionDoc
	err := s.sessions.FindOne(ctx, bson.D{{Key: "_id", Value: id}}).Decode(&d)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return staff.Session{}, staff.ErrNoSession
	}
	if err != nil {
		return staff.Session{}, fmt.Errorf("staff session: %w", err)
	}
	sess := staff.Session(d)
	sess.ExpiresAt = d.ExpiresAt.UTC()
	return sess, nil
}

// EndSession deletes the session with the id.
func (s *StaffAccounts) EndSession(ctx context.Context, id string) error {
	if _, err := s.sessions.DeleteOne(ctx, bson.D{{Key: "_id", Value: id}}); err != nil {
		return fmt.Errorf("end staff session: %w", err)
	}
	return nil
}

// DeleteExpiredSessions deletes the sessions expired by now.
func (s *StaffAccounts) DeleteExpiredSessions(ctx context.Context, now time.Time) (int64, error) {
	res, err := s.sessions.DeleteMany(ctx, bson.D{{Key: "expiresAt", Value: bson.D{{Key: "$lte", Value: now}}}})
	if err != nil {
		return 0, fmt.Errorf("delete expired staff sessions: %w", err)
	}
	return res.DeletedCount, nil
}
