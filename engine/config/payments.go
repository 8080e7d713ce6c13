package config

import (
	"fmt"
	"net/url"
	"strings"
)

// DefaultStripeAPIBase is Stripe's API origin.
const DefaultStripeAPIBase = "https://api.stripe.com"

// loadPayments reads the payment provider's settings. Stripe without a
// secret key is refused at start rather than failing at the first checkout.
func (c *Config) loadPayments(getenv func(string) string) error {
	var err error
	c.Payments = or(getenv("GLIMPSE_PAYMENTS"), "sandbox")
	if c.StripeSecretKey, err = secret(getenv, "GLIMPSE_STRIPE_SECRET_KEY"); err != nil {
		return err
	}
	if c.StripeWebhookSecret, err = secret(getenv, "GLIMPSE_STRIPE_WEBHOOK_SECRET"); err != nil {
		return err
	}
	c.StripeAPIBase = strings.TrimRight(or(getenv("GLIMPSE_STRIPE_API_BASE"), DefaultStripeAPIBase), "/")
	if u, err := url.Parse(c.StripeAPIBase); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("GLIMPSE_STRIPE_API_BASE must be an http(s) origin, got %q", c.StripeAPIBase)
	}
	switch c.Payments {
	case "sandbox":
	case "stripe":
		if c.StripeSecretKey == "" {
			return fmt.Errorf("GLIMPSE_PAYMENTS=stripe needs GLIMPSE_STRIPE_SECRET_KEY (or GLIMPSE_STRIPE_SECRET_KEY_FILE)")
		}
		if c.StripeWebhookSecret == "" {
			return fmt.Errorf("GLIMPSE_PAYMENTS=stripe needs GLIMPSE_STRIPE_WEBHOOK_SECRET (or _FILE), the webhook endpoint's signing secret")
		}
	default:
		return fmt.Errorf("GLIMPSE_PAYMENTS must be sandbox or stripe, got %q", c.Payments)
	}
	return nil
}
