package billing

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"glimpse/engine"
)

// namingAnn returns, per collection, the documents that still hold ann's
// address (the claims are the privacy package's to erase: a checkout key is
// bound to the address that used it).
func (f fixture) namingAnn(t *testing.T) []string {
	t.Helper()
	ctx := context.Background()
	var out []string
	var names []string
	if mdb := f.st.DB(); mdb != nil {
		var err error
		if names, err = mdb.ListCollectionNames(ctx, bson.M{}); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range names {
		cur, err := f.st.DB().Collection(name).Find(ctx, bson.M{})
		if err != nil {
			t.Fatal(err)
		}
		var docs []bson.Raw
		if err := cur.All(ctx, &docs); err != nil {
			t.Fatal(err)
		}
		for _, d := range docs {
			if strings.Contains(strings.ToLower(d.String()), "ann@example.com") {
				out = append(out, name+": "+d.String())
			}
		}
	}
	// The tables of billing's stores on the embedded database (the
	// orders, the sandbox's books) are read too.
	if db := f.st.SQL(); db != nil {
		tables, err := db.Tables(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, table := range tables {
			rows, err := db.RowsText(ctx, table)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range rows {
				if strings.Contains(strings.ToLower(r), "ann@example.com") {
					out = append(out, table+": "+r)
				}
			}
		}
	}
	return out
}

// startFor opens a plan checkout's hosted page for an address.
func (f fixture) startFor(t *testing.T, email, key string) CheckoutStart {
	t.Helper()
	plan, err := f.svc.Catalogue().Find("default", FamilyWeekly)
	if err != nil {
		t.Fatal(err)
	}
	st, err := f.svc.StartCheckout(context.Background(), CheckoutRequest{Brand: "default", Bundle: "glimpse.web",
		PlanCode: plan.Code, Email: email, Key: key, Origin: "https://glimpse.example"})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestEraseSubscriberFindsEverythingByID erases a subscriber who bought a
// plan (with a card whose bank asks at every renewal, so a renewal left an
// order to confirm), an add-on (whose charge key names the account) refunded
// in part, left a checkout unpaid and asked for cancel links. Everything is
// found through the lists it is kept on: the orders, their sandbox pages,
// the cancel links and the address's lists go; the ledger stays without the
// person; someone else's orders and links stay and are still found.
func TestEraseSubscriberFindsEverythingByID(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	sub := f.buyAuthenticated(t, "erase-3ds")
	f.clock.Set(sub.CurrentPeriodEnd)
	if _, err := f.svc.RenewDue(ctx); err != nil {
		t.Fatal(err)
	}
	var confirm string
	for _, n := range f.notices.list {
		if n.Kind == NoticeConfirmPayment {
			confirm = n.Data["token"]
		}
	}
	renewalOrder, err := f.svc.Confirmation(ctx, confirm)
	if err != nil {
		t.Fatalf("the renewal to confirm: %v", err)
	}
	if _, err := f.svc.StartConfirmation(ctx, confirm, "https://glimpse.example"); err != nil {
		t.Fatal(err)
	}
	addOn, addOnCharge := f.withAddOn(t)
	main, err := f.svc.Subscription(ctx, "main-u1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.Refund(ctx, RefundRequest{ChargeID: addOnCharge.ID, Amount: 100, Reason: "ann@example.com asked",
		By: "staff:support@example.com", Key: "r1"}); err != nil {
		t.Fatal(err)
	}
	// A second page opened before the plan was paid (another tab): an
	// address with a running plan can open no new one now.
	weekly, err := f.svc.Catalogue().Find("default", FamilyWeekly)
	if err != nil {
		t.Fatal(err)
	}
	unpaid, err := f.svc.openSession(ctx, Order{ID: "co_erase_unpaid", Kind: OrderPlan, Brand: "default", Bundle: "glimpse.web",
		PlanCode: weekly.Code, Email: "ann@example.com", SubscriptionID: "sub_erase_unpaid", ChargeKey: "checkout:erase-unpaid",
		Amount: weekly.Price}, SessionPayment, "Weekly Plan", "https://glimpse.example", "https://glimpse.example/checkout")
	if err != nil {
		t.Fatal(err)
	}
	var annsLinks []string
	for range 2 {
		token, err := f.svc.NewCancelLink(ctx, "Ann@Example.com", "u1", "glimpse.web", CancelLinkLifetime)
		if err != nil {
			t.Fatal(err)
		}
		annsLinks = append(annsLinks, token)
	}
	bobs := f.startFor(t, "bob@example.com", "erase-bob")
	bobsLink, err := f.svc.NewCancelLink(ctx, "bob@example.com", "", "glimpse.web", CancelLinkLifetime)
	if err != nil {
		t.Fatal(err)
	}
	if os, _ := f.svc.st.Orders().ByEmail(ctx, "ann@example.com"); len(os) != 3 {
		t.Fatalf("ann's address has %d orders, want the checkout, the renewal and the unpaid one", len(os))
	}

	retain := start.AddDate(8, 0, 0)
	subs := []Subscription{sub, main, addOn}
	for range 2 { // run again after it finished: nothing more changes, nothing fails
		if err := f.svc.EraseSubscriber(ctx, subs, []string{"Ann@Example.com", sub.Email}, retain); err != nil {
			t.Fatal(err)
		}
	}
	if left := f.namingAnn(t); len(left) > 0 {
		t.Fatalf("still naming the person:\n%s", strings.Join(left, "\n"))
	}
	for _, id := range []string{unpaid.OrderID, renewalOrder.ID} {
		if _, err := f.svc.Order(ctx, id); !errors.Is(err, ErrNoOrder) {
			t.Errorf("order %s after the erasure: %v", id, err)
		}
	}
	if _, err := f.svc.SandboxPage(ctx, sessionOf(unpaid)); !errors.Is(err, ErrNoSession) {
		t.Errorf("the unpaid order's sandbox page after the erasure: %v", err)
	}
	if n := countRecords(t, f.st, "sandbox_sessions", "", bson.M{}); n != 1 {
		t.Errorf("%d sandbox pages left, want bob's", n)
	}
	for _, owner := range []string{sub.ID, addOn.ID} {
		if os, err := f.svc.st.Orders().OfSubscription(ctx, owner); err != nil || len(os) != 0 {
			t.Errorf("%s: %d orders left (%v)", owner, len(os), err)
		}
	}

	// The ledger stays for the tax period, without the person.
	charges, err := f.svc.ChargesOf(ctx, []string{sub.ID, main.ID, addOn.ID})
	if err != nil || len(charges) < 2 {
		t.Fatalf("kept charges: %+v, %v", charges, err)
	}
	for _, ch := range charges {
		kept, err := f.svc.Charge(ctx, ch.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !kept.Erased || !kept.RetainUntil.Equal(retain) {
			t.Errorf("charge %s: erased %v until %v", ch.ID, kept.Erased, kept.RetainUntil)
		}
		if ch.SubscriptionID == addOn.ID && !strings.HasPrefix(ch.Key, "erased:") {
			t.Errorf("the add-on's charge keeps the key that names the account: %s", ch.Key)
		}
	}
	receipts, err := f.svc.st.Receipts().OfSubscriptions(ctx, []string{sub.ID, main.ID, addOn.ID})
	if err != nil || len(receipts) != 2 { // the plan's and the add-on's
		t.Fatalf("receipts: %+v, %v", receipts, err)
	}
	for _, r := range receipts {
		if r.Email != ErasedEmail || r.ChargeID != "" || !r.Erased || !r.RetainUntil.Equal(retain) {
			t.Errorf("receipt not anonymised: %+v", r)
		}
	}
	for _, ch := range charges {
		refunds, err := f.svc.RefundsOf(ctx, ch.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range refunds {
			if r.Reason != "erased" {
				t.Errorf("refund %s keeps its reason %q", r.ID, r.Reason)
			}
		}
		if ch.SubscriptionID == addOn.ID && len(refunds) != 1 {
			t.Errorf("the add-on's refund is not kept with its charge: %+v", refunds)
		}
	}
	for _, s := range subs {
		history, err := f.svc.History(ctx, s.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range history {
			if c.By != "erased" || c.Detail != "" || c.From == "u1" || c.To == "u1" {
				t.Errorf("history line not stripped: %+v", c)
			}
		}
	}

	// Bob's are his: still stored, listed and working.
	if o, err := f.svc.Order(ctx, bobs.OrderID); err != nil || o.Email != "bob@example.com" {
		t.Errorf("bob's order: %+v, %v", o, err)
	}
	if _, err := f.svc.SandboxPage(ctx, sessionOf(bobs)); err != nil {
		t.Errorf("bob's sandbox page: %v", err)
	}
	if os, _ := f.svc.st.Orders().ByEmail(ctx, "bob@example.com"); len(os) != 1 || os[0].ID != bobs.OrderID {
		t.Errorf("bob's orders by his address: %+v", os)
	}
	if l, err := f.svc.st.CancelLinks().Get(ctx, engine.HashToken(bobsLink)); err != nil || l.Email != "bob@example.com" {
		t.Errorf("bob's cancel link: %+v, %v", l, err)
	}
	// Ann's are gone (they live in billing's store, which namingAnn's
	// reading of the old collections does not reach).
	for _, token := range annsLinks {
		if l, err := f.svc.st.CancelLinks().Get(ctx, engine.HashToken(token)); !errors.Is(err, ErrNoCancelLink) {
			t.Errorf("ann's cancel link left: %+v, %v", l, err)
		}
	}

	// After the tax period the purge deletes what was kept, found by the
	// end of its retention; not a day before.
	f.clock.Set(retain.Add(-24 * time.Hour))
	if n, err := f.svc.PurgeRetained(ctx); err != nil || n != 0 {
		t.Fatalf("purged %d (%v) before the tax period ended", n, err)
	}
	f.clock.Set(retain.Add(time.Hour))
	if n, err := f.svc.PurgeRetained(ctx); err != nil || n == 0 {
		t.Fatalf("purged %d (%v) after the tax period", n, err)
	}
	for _, id := range []string{sub.ID, main.ID, addOn.ID} {
		if _, err := f.svc.Subscription(ctx, id); !errors.Is(err, ErrNoSubscription) {
			t.Errorf("subscription %s kept after the purge (%v)", id, err)
		}
		if h, err := f.svc.History(ctx, id); err != nil || len(h) != 0 {
			t.Errorf("subscription %s: %d history lines kept after the purge (%v)", id, len(h), err)
		}
	}
	for _, ch := range charges {
		if left, err := f.svc.Charge(ctx, ch.ID); !errors.Is(err, ErrNoCharge) {
			t.Errorf("charge %s kept after the purge: %+v, %v", ch.ID, left, err)
		}
		if left, err := f.svc.RefundsOf(ctx, ch.ID); err != nil || len(left) != 0 {
			t.Errorf("refunds of %s: %d kept records left after the purge (%v)", ch.ID, len(left), err)
		}
	}
	if left, err := f.svc.st.Receipts().OfSubscriptions(ctx, []string{sub.ID, main.ID, addOn.ID}); err != nil || len(left) != 0 {
		t.Errorf("receipts: %d kept records left after the purge (%v)", len(left), err)
	}
}

// TestKeptRecordsArePurgedByTheirRetention: a subscription kept by an
// erasure is found by the end of its retention (an index, no schedule) and
// purged when its period has ended; a subscription that was never erased
// stays.
func TestKeptRecordsArePurgedByTheirRetention(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	ended := f.clock.Now().Add(-time.Hour)
	for _, sub := range []Subscription{
		{ID: "old-kept", Erased: true, RetainUntil: ended, Email: ErasedEmail},
		{ID: "old-live", Email: "carol@example.com"},
	} {
		if err := f.svc.Put(ctx, sub); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := f.svc.PurgeRetained(ctx); err != nil || n != 1 {
		t.Fatalf("purged %d (%v), want the old subscription", n, err)
	}
	if _, err := f.svc.Subscription(ctx, "old-live"); err != nil {
		t.Errorf("a subscription never erased was purged: %v", err)
	}
}

// TestOrderRefusesAListSlot: an order id from the page's query that names
// what an address list's slot was named is no order (it would tell whether
// an address ever bought).
func TestOrderRefusesAListSlot(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.startFor(t, "ann@example.com", "slot-probe")
	if _, err := f.svc.Order(context.Background(), "ann@example.com#0"); !errors.Is(err, ErrNoOrder) {
		t.Fatalf("a list slot read as an order: %v", err)
	}
}

// TestOrdersOfTheSubscriptionsOrTheAddressesAreErased: the erasure finds an
// order by its address or by its subscription (one under an address the
// erasure is not given, one unpaid whose subscription was never made),
// deletes it with its sandbox page, and leaves another person's.
func TestOrdersOfTheSubscriptionsOrTheAddressesAreErased(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	sub := Subscription{ID: "sub-old", Email: "ann@example.com", Bundle: "glimpse.web", Brand: "default",
		PlanCode: "glimpse_weekly_trial", Status: StatusActive, MainPlan: true, Price: USD(100)}
	if err := f.svc.Put(ctx, sub); err != nil {
		t.Fatal(err)
	}
	orders := []Order{
		{ID: "co_old_paid", Kind: OrderPlan, Email: "ann@example.com", SubscriptionID: sub.ID, Status: OrderPaid},
		{ID: "co_old_card", Kind: OrderCard, Email: "ann.before@example.com", SubscriptionID: sub.ID, Status: OrderPending},
		{ID: "co_old_unpaid", Kind: OrderPlan, Email: "ann@example.com", SubscriptionID: "sub-never-paid", Status: OrderPending},
		{ID: "co_old_bob", Kind: OrderPlan, Email: "bob@example.com", SubscriptionID: "sub-bob", Status: OrderPending},
	}
	sandbox := sandboxOf(f.st)
	for _, o := range orders {
		if _, _, err := f.svc.st.Orders().Open(ctx, o); err != nil {
			t.Fatal(err)
		}
		page := SandboxSession{ID: sandboxSessionID(orderSessionKey(o.ID)), Key: orderSessionKey(o.ID), OrderID: o.ID,
			Email: o.Email, Status: "open"}
		if _, err := sandbox.OpenSession(ctx, page); err != nil {
			t.Fatal(err)
		}
	}
	for range 2 { // run again after it finished: nothing more changes, nothing fails
		if err := f.svc.EraseSubscriber(ctx, []Subscription{sub}, []string{"ann@example.com"}, start.AddDate(8, 0, 0)); err != nil {
			t.Fatal(err)
		}
	}
	if left := f.namingAnn(t); len(left) > 0 {
		t.Fatalf("still naming the person:\n%s", strings.Join(left, "\n"))
	}
	for _, id := range []string{"co_old_paid", "co_old_card", "co_old_unpaid"} {
		if _, err := f.svc.Order(ctx, id); !errors.Is(err, ErrNoOrder) {
			t.Errorf("order %s after the erasure: %v", id, err)
		}
	}
	if _, err := f.svc.Order(ctx, "co_old_bob"); err != nil {
		t.Errorf("bob's order: %v", err)
	}
	if n := countRecords(t, f.st, "checkout_orders", "", bson.M{}); n != 1 {
		t.Errorf("%d orders left, want bob's", n)
	}
	if n := countRecords(t, f.st, "sandbox_sessions", "", bson.M{}); n != 1 {
		t.Errorf("%d sandbox pages left, want bob's", n)
	}
}

// TestAnAddressesCancelLinksAreAllErased: links asked for one address at
// once are all stored, and its erasure deletes every one, and no other
// address's.
func TestAnAddressesCancelLinksAreAllErased(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	const n = 8
	var wg sync.WaitGroup
	tokens := make(chan string, n)
	for range n {
		wg.Go(func() {
			token, err := f.svc.NewCancelLink(ctx, "ann@example.com", "", "glimpse.web", CancelLinkLifetime)
			if err != nil {
				t.Error(err)
			}
			tokens <- token
		})
	}
	wg.Wait()
	close(tokens)
	bobs, err := f.svc.NewCancelLink(ctx, "bob@example.com", "", "glimpse.web", CancelLinkLifetime)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.svc.EraseSubscriber(ctx, nil, []string{"ann@example.com"}, start); err != nil {
		t.Fatal(err)
	}
	for token := range tokens {
		if l, err := f.svc.st.CancelLinks().Get(ctx, engine.HashToken(token)); !errors.Is(err, ErrNoCancelLink) {
			t.Errorf("ann's cancel link left: %+v, %v", l, err)
		}
	}
	if _, err := f.svc.st.CancelLinks().Get(ctx, engine.HashToken(bobs)); err != nil {
		t.Errorf("bob's cancel link: %v", err)
	}
}
