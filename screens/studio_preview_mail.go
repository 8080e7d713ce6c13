package screens

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"glimpse/engine/billing"
	"glimpse/engine/brand"
	"glimpse/engine/mail"
)

// The copy editor's mails: a mail's texts (mail.*) are drawn as the
// development mailbox shows a sent mail (DevMailMessage: subject, and the
// text body as sent), rendered by the outbox's own template code
// (mail.Preview) for a sample subscriber of the brand. Links point at the
// brand's address with sample tokens; the preview's frame keeps them from
// opening.

// copySampleEmail is the sample subscriber's address (example.com is
// reserved for examples, RFC 2606).
const copySampleEmail = "jamie.rivera@example.com"

// copySampleToken stands for a link's secret in a previewed mail.
const copySampleToken = "k7Qx2mP9vR4tZ8wB"

// mailSample is one mail the preview can draw: its template, and the data
// the app's mail would carry, in the brand's words where the app puts its
// words in (a refund's effect, a receipt's period line).
type mailSample struct {
	template string
	data     func(c Context, s mailSampleValues) map[string]string
}

// mailSampleValues are the sample subscriber's values.
type mailSampleValues struct {
	plan                  billing.Plan
	next                  string
	paid, renew, deleteOn string
	card                  string
}

func planData(v mailSampleValues, date string) map[string]string {
	return map[string]string{"plan": v.plan.Name, "price": v.plan.Price, "period": v.plan.Period, "date": date}
}

// mailSamples are every template, with variants for the texts only some
// mails of a template show (a dropped change, a receipt's refund, each
// refund's effect).
var mailSamples = []mailSample{
	{mail.TemplateActivation, func(c Context, v mailSampleValues) map[string]string {
		return map[string]string{"email": copySampleEmail, "link": "/access-recovery?key=" + copySampleToken}
	}},
	{mail.TemplatePurchase, func(c Context, v mailSampleValues) map[string]string {
		return map[string]string{"link": "/access-recovery?key=" + copySampleToken, "plan": v.plan.Name, "price": v.plan.Price,
			"email": copySampleEmail, "period": v.plan.Period, "renewDate": v.renew}
	}},
	{mail.TemplatePasswordReset, func(c Context, v mailSampleValues) map[string]string {
		return map[string]string{"link": PathPasswordRecovery + "?token=" + copySampleToken, "minutes": "30"}
	}},
	{mail.TemplateCancelConfirm, func(c Context, v mailSampleValues) map[string]string {
		return map[string]string{"link": PathUnsubscription + "?from=" + copySampleToken, "email": copySampleEmail}
	}},
	{mail.TemplatePaymentFailed, func(c Context, v mailSampleValues) map[string]string {
		return map[string]string{"link": "/checkout/card?subscription=sub_" + copySampleToken, "plan": v.plan.Name, "retryDate": v.renew}
	}},
	{mail.TemplateConfirmPayment, func(c Context, v mailSampleValues) map[string]string {
		return map[string]string{"link": billing.PathCheckoutConfirm + "?token=" + copySampleToken, "plan": v.plan.Name,
			"price": v.plan.Price, "retryDate": v.renew}
	}},
	{mail.TemplateCanceled, func(c Context, v mailSampleValues) map[string]string {
		return map[string]string{"plan": v.plan.Name, "endDate": v.renew}
	}},
	{mail.TemplateCanceled, func(c Context, v mailSampleValues) map[string]string {
		return map[string]string{"plan": v.plan.Name, "endDate": v.renew,
			"dropped": strings.ReplaceAll(c.T("mail.canceled.dropped"), "{next}", v.next)}
	}},
	{mail.TemplateReceipt, receiptSample(false)},
	{mail.TemplateReceipt, receiptSample(true)},
	{mail.TemplateProfileReport, func(c Context, v mailSampleValues) map[string]string {
		return map[string]string{"email": copySampleEmail}
	}},
	{mail.TemplateProfileReportPending, func(c Context, v mailSampleValues) map[string]string {
		return map[string]string{"email": copySampleEmail, "link": PathAnalytics}
	}},
	{mail.TemplateAccountExists, func(c Context, v mailSampleValues) map[string]string {
		return map[string]string{"email": copySampleEmail, "link": PathSignIn}
	}},
	{mail.TemplateDataExport, func(c Context, v mailSampleValues) map[string]string {
		return map[string]string{"link": "/privacy/export?key=" + copySampleToken, "expires": v.renew}
	}},
	{mail.TemplateAccountErased, func(c Context, v mailSampleValues) map[string]string {
		return map[string]string{"email": copySampleEmail, "years": "10"}
	}},
	{mail.TemplateInactivity, func(c Context, v mailSampleValues) map[string]string {
		return map[string]string{"email": copySampleEmail, "date": v.deleteOn, "link": PathSignIn}
	}},
	{mail.TemplateResumed, func(c Context, v mailSampleValues) map[string]string { return planData(v, v.renew) }},
	{mail.TemplatePlanChange, func(c Context, v mailSampleValues) map[string]string { return planData(v, v.renew) }},
	{mail.TemplatePlanKept, func(c Context, v mailSampleValues) map[string]string { return planData(v, v.renew) }},
	{mail.TemplateExtended, func(c Context, v mailSampleValues) map[string]string {
		return map[string]string{"plan": v.plan.Name, "date": v.deleteOn}
	}},
	{mail.TemplateCardUpdated, func(c Context, v mailSampleValues) map[string]string {
		return map[string]string{"plan": v.plan.Name, "card": v.card}
	}},
	refundSample("mail.refunded.keeps"), refundSample("mail.refunded.endsPlan"),
	refundSample("mail.refunded.endsAddOn"), refundSample("mail.refunded.duplicate"),
}

// receiptSample is a plan's receipt, with its service period, and refunded
// in full when refunded is set (as the app words them, engine/app).
func receiptSample(refunded bool) func(c Context, v mailSampleValues) map[string]string {
	return func(c Context, v mailSampleValues) map[string]string {
		d := map[string]string{"item": v.plan.Name, "price": v.plan.Price, "date": v.paid, "card": v.card,
			"number": "GL-2026-004217", "period": "\n" + strings.ReplaceAll(c.T("mail.receipt.period"), "{period}", v.paid+" – "+v.renew)}
		if refunded {
			d["refunded"] = "\n" + strings.NewReplacer("{amount}", v.plan.Price, "{date}", v.paid).Replace(c.T("mail.receipt.refunded"))
		}
		return d
	}
}

// refundSample is a refund whose effect the brand words with effectKey.
func refundSample(effectKey string) mailSample {
	return mailSample{mail.TemplateRefunded, func(c Context, v mailSampleValues) map[string]string {
		return map[string]string{"amount": v.plan.Price, "item": v.plan.Name, "card": v.card, "date": v.paid, "effect": c.T(effectKey)}
	}}
}

// mailPreviews compose, for a mail key, each sample mail as the dev
// mailbox shows it once sent; the last ones again with the public demo's
// notice (its own texts, mail.demo and mail.demoSubject).
func mailPreviews(sample CopySample) []func(Context) Page {
	end := sample.PeriodEnd
	if end.IsZero() {
		end = time.Date(2026, 12, 7, 0, 0, 0, 0, time.UTC)
	}
	// The change a subscriber may have scheduled: the brand's offer.
	v := mailSampleValues{plan: billing.Describe(""), next: billing.Describe(cmp.Or(sample.Sale.Code, "premium_one_month")).Name,
		paid: brand.Date(end.AddDate(0, 0, -7)), renew: brand.Date(end), deleteOn: brand.Date(end.AddDate(0, 0, 30)),
		card: "Visa •••• 4242"}
	origin := cmp.Or(strings.TrimRight(sample.Origin, "/"), "https://glimpse.example")
	var out []func(Context) Page
	for i, ms := range append(slices.Clone(mailSamples), mailSamples[0]) {
		demo := i == len(mailSamples)
		out = append(out, func(c Context) Page {
			from := mail.From{Brand: c.Brand.Name, Operator: cmp.Or(sample.Operator, c.Brand.Name),
				Support: cmp.Or(c.Brand.SupportEmail, sample.Support, "support@example.com")}
			subject, text, err := mail.Preview(c.Copy, from, origin, demo,
				mail.Message{Key: "preview", To: copySampleEmail, Brand: c.Brand.Key, Template: ms.template, Data: ms.data(c, v)})
			if err != nil {
				return Page{}
			}
			item := &DevMailItem{ID: "preview", To: copySampleEmail, Subject: subject, Status: "sent",
				Time: brand.DateTime(end.AddDate(0, 0, -7)), Attempts: 1, Text: text}
			if ms.template == mail.TemplateProfileReport {
				item.Attachments = []string{"profile-report.pdf"}
			}
			p := DevMailMessage(c, item, "")
			// The subject is the mail's first heading; the page's title
			// would say it twice.
			p.Screen.Header = nil
			return p
		})
	}
	return out
}
