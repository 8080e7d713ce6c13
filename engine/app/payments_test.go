package app

import (
	"testing"

	"glimpse/engine"
	"glimpse/engine/config"
)

func TestPaymentProvider(t *testing.T) {
	t.Parallel()
	clock := engine.SystemClock{}
	for payments, want := range map[string]string{"sandbox": "sandbox", "stripe": "stripe"} {
		p, err := paymentProvider(config.Config{Payments: payments, StripeSecretKey: "sk_test_123",
			StripeAPIBase: config.DefaultStripeAPIBase}, nil, clock, "whsec_test")
		if err != nil || p.Name() != want {
			t.Fatalf("%s: %v, %v", payments, p, err)
		}
	}
	if _, err := paymentProvider(config.Config{Payments: "stripe"}, nil, clock, "whsec_test"); err == nil {
		t.Fatal("stripe without a key built")
	}
	if _, err := paymentProvider(config.Config{Payments: "other"}, nil, clock, "whsec_test"); err == nil {
		t.Fatal("unknown provider built")
	}
}
