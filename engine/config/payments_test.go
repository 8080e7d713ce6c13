package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPayments(t *testing.T) {
	t.Parallel()
	load := func(vars map[string]string) (Config, error) { return Load(env(vars)) }
	c, err := load(nil)
	if err != nil || c.Payments != "sandbox" || c.StripeAPIBase != DefaultStripeAPIBase {
		t.Fatalf("default: %+v, %v", c.Payments, err)
	}
	if _, err := load(map[string]string{"GLIMPSE_PAYMENTS": "stripe"}); err == nil || !strings.Contains(err.Error(), "GLIMPSE_STRIPE_SECRET_KEY") {
		t.Fatalf("stripe without a key: %v", err)
	}
	if _, err := load(map[string]string{"GLIMPSE_PAYMENTS": "paypal"}); err == nil {
		t.Fatal("unknown provider accepted")
	}
	keyFile := filepath.Join(t.TempDir(), "key")
	if err := os.WriteFile(keyFile, []byte("sk_test_abc\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err = load(map[string]string{"GLIMPSE_PAYMENTS": "stripe", "GLIMPSE_STRIPE_SECRET_KEY_FILE": keyFile,
		"GLIMPSE_STRIPE_WEBHOOK_SECRET": "whsec_x", "GLIMPSE_STRIPE_API_BASE": "http://127.0.0.1:12111/"})
	if err != nil || c.StripeSecretKey != "sk_test_abc" || c.StripeWebhookSecret != "whsec_x" || c.StripeAPIBase != "http://127.0.0.1:12111" {
		t.Fatalf("stripe: %+v, %v", c, err)
	}
}
