package app

import (
	"context"
	"fmt"
	"net/url"

	"glimpse/engine/billing"
	"glimpse/engine/mail"
)

// billingMail turns a billing notice into a mail in the outbox, with the
// link each kind of notice leads to.
func (a *App) billingMail(ctx context.Context, n billing.Notice) error {
	if a.Outbox == nil {
		return nil
	}
	data := map[string]string{}
	for k, v := range n.Data {
		data[k] = v
	}
	var template string
	switch n.Kind {
	case billing.NoticePurchase:
		// The buyer has no account yet: the mail leads to creating it.
		template = mail.TemplatePurchase
		data["link"] = "/access-recovery?id=" + url.QueryEscape(n.Data["subscription"])
		data["email"] = n.To
	case billing.NoticePaymentFailed:
		template = mail.TemplatePaymentFailed
		data["link"] = "/checkout/card?subscription=" + url.QueryEscape(n.Data["subscription"])
	case billing.NoticeCanceled:
		template = mail.TemplateCanceled
	case billing.NoticeReceipt:
		template = mail.TemplateReceipt
	default:
		return fmt.Errorf("billing mail: unknown notice %q", n.Kind)
	}
	return a.Outbox.Enqueue(ctx, mail.Message{Key: n.Key, To: n.To, Brand: n.Brand, Template: template, Data: data})
}
