package screens

import (
	"time"

	"glimpse/engine/billing"
	"glimpse/engine/ui"
)

// The screens' states after an action, as the server composes them once
// the action has run: a link already used, an account that exists, an
// order paid or refused, a check the service refused. The copy editor
// draws a key on the first of a group's screens that shows it
// (copyPreviewScreens), so each state here draws the texts only it shows.

// copySampleDate is a day the sample states show, formatted.
const copySampleDate = "Dec 7, 2026"

// orderStates are the payment page's states for each kind of order: every
// status, and a paid plan with its account ready, still to be created (the
// mail can be sent again) and just sent again.
func orderStates() []func(Context) Page {
	var out []func(Context) Page
	p := billing.Describe("")
	for _, kind := range []string{billing.OrderPlan, billing.OrderAddOn, billing.OrderCard, billing.OrderRenewal} {
		for _, status := range []string{billing.OrderPending, billing.OrderProcessing, billing.OrderPaid, billing.OrderFailed,
			billing.OrderExpired, billing.OrderRefunded} {
			for _, v := range []OrderState{{}, {AccountReady: true}, {Fixable: true}, {Fixable: true, Sent: true}, {Return: "profile_report"}} {
				st := v
				st.Found, st.Kind, st.Status, st.Email = true, kind, status, "j***@example.com"
				st.Plan, st.Price, st.Period, st.RenewsOn = p.Name, p.Price, p.Period, copySampleDate
				out = append(out, func(c Context) Page { return CheckoutDone(c, st) })
			}
		}
	}
	return out
}

// stateScreens are the states after an action of the screens that have
// them, by copyScreens id; CopyPreview tries them after the screen as a
// person first meets it.
var stateScreens = map[string][]func(c Context) Page{
	"createAccount": {
		func(c Context) Page {
			return CreateAccount(c, CreateAccountState{Key: "preview", Email: copySampleEmail, EmailInUse: true})
		},
		func(c Context) Page { return CreateAccount(c, CreateAccountState{Ready: true}) },
		func(c Context) Page {
			return CreateAccount(c, CreateAccountState{Problem: "createAccount.linkInvalid"})
		},
		func(c Context) Page {
			return CreateAccount(c, CreateAccountState{Problem: "createAccount.noSubscription"})
		},
	},
	"accessRecovery": {func(c Context) Page { return AccessRecovery(c, copySampleEmail) }},
	"passwordRecovery": {func(c Context) Page { return PasswordRecovery(c, ResetState{LinkInvalid: true}) },
		// The dialog sign-in opens once a new password is set.
		func(c Context) Page { return SignIn(c, PathCheckout) }},
	"course":   {copySampleHome},
	"purchase": append(copySamplePlans(), copySampleReceipts()...),
	"checkout": append([]func(Context) Page{func(c Context) Page {
		// The brand's plans as its checkout offers them, in the sandbox.
		plans := billing.DefaultCatalogue().ForBrand(c.Brand.Key, billing.KindMain)
		return Checkout(c, CheckoutState{Plans: plans, Key: "preview", Sandbox: true})
	}}, orderStates()...),
	"confirm": {
		func(c Context) Page {
			return ConfirmPayment(c, ConfirmState{Found: true, Token: "preview", Plan: billing.Describe("").Name, Price: billing.Describe("").Price})
		},
		func(c Context) Page { return ConfirmPayment(c, ConfirmState{Found: true, Closed: true}) },
	},
	"breach": {
		func(c Context) Page {
			return PasswordSafety(c, PasswordSafetyState{Email: copySampleEmail, Outcome: BreachClean, CheckedAt: copySampleDate, CanRecheck: true, Sample: true})
		},
		func(c Context) Page {
			return PasswordSafety(c, PasswordSafetyState{Email: copySampleEmail, Outcome: BreachCompromised, CheckedAt: copySampleDate,
				Breaches: []BreachView{{Title: "Canva", Domain: "canva.com", Date: "May 2019"}}})
		},
		func(c Context) Page {
			return PasswordSafety(c, PasswordSafetyState{Email: copySampleEmail, Outcome: BreachClean, CheckedAt: copySampleDate, Notice: BreachRateLimited})
		},
		func(c Context) Page {
			return PasswordSafety(c, PasswordSafetyState{Email: copySampleEmail, Outcome: BreachFailed})
		},
	},
	"privacyData": {
		func(c Context) Page {
			return PrivacyData(c, PrivacyDataState{Email: copySampleEmail, Export: ExportReady, ExportReadyAt: copySampleDate,
				ExportExpires: copySampleDate, ExportSize: "2.4 MB", Instagram: "jamie.rivera", InstagramConnected: true})
		},
		func(c Context) Page {
			return PrivacyData(c, PrivacyDataState{Email: copySampleEmail, Export: ExportPreparing})
		},
		func(c Context) Page {
			return PrivacyData(c, PrivacyDataState{Email: copySampleEmail, Export: ExportFailed, InstagramConnected: true})
		},
	},
	"deleteAccount": {
		func(c Context) Page {
			return DeleteAccount(c, DeleteAccountState{Email: copySampleEmail, Plan: billing.Describe("").Name, TaxYears: 10})
		},
		// The Instagram deletion's status page (privacy.DeletionCompleted,
		// privacy.DeletionNoData).
		func(c Context) Page {
			return DeletionStatus(c, DeletionStatusState{Found: true, Code: "preview", Status: "completed", Date: copySampleDate})
		},
		func(c Context) Page {
			return DeletionStatus(c, DeletionStatusState{Found: true, Code: "preview", Status: "no_data", Date: copySampleDate})
		},
	},
	"home":           {copySampleHome},
	"menu":           {copySampleHome},
	"footer":         {copySampleHome},
	"noSubscription": {func(c Context) Page { return SignIn(c, PathCheckout) }},
	"plan":           copySamplePlans(),
	"receipt":        copySampleReceipts(),
	"billing":        {copySampleHistory},
	"devMail":        copySampleMailbox(),
	"studio":         copySampleStudio(),
	"experiments":    copySampleExperiments(),
	"analytics":      copySampleAnalytics(),
	"upload":         copySampleAnalytics(),
	"support":        copySampleDesk(),
	"unsubscription": {
		// Cancel by email, asked from My Plan over the dashboard.
		copySampleHome,
		func(c Context) Page { return UnsubscriptionFor(c, UnsubscriptionState{SentTo: copySampleEmail}) },
		func(c Context) Page { return UnsubscriptionFor(c, UnsubscriptionState{Spent: true}) },
		unsubscriptionOutcome(UnsubscriptionConfirm), unsubscriptionOutcome(UnsubscriptionCanceled),
		unsubscriptionOutcome(UnsubscriptionAlreadyCanceled), unsubscriptionOutcome(UnsubscriptionNone),
	},
}

// unsubscriptionOutcome is the cancel page after its link was opened, for
// a period ending on the sample day.
func unsubscriptionOutcome(outcome string) func(Context) Page {
	return func(c Context) Page {
		return UnsubscriptionFor(c, UnsubscriptionState{Outcome: outcome, AccessEnds: time.Date(2026, 12, 7, 0, 0, 0, 0, time.UTC)})
	}
}

// copyPreviewFormErrors are the messages a failed action answers with as
// its form's error (the server's error reply, engine/server), by the form
// it shows in: the renderer keeps a form's error beside the tree, not in
// it, so the preview draws the screen with the message where the form's
// error line (form_error) shows it, as the danger banner the screens use
// for a problem.
var copyPreviewFormErrors = map[string]string{
	"auth.invalidCredential":      SignInForm,
	"auth.tooManyRequests":        SignInForm,
	"auth.userDisabled":           SignInForm,
	"auth.linkInvalid":            SignInForm,
	"accessRecovery.alreadySent":  AccessRecoveryForm,
	"studio.invalidCredential":    StudioSignInForm,
	"checkout.keyReused":          CheckoutForm,
	"checkout.tooManyForEmail":    CheckoutForm,
	"checkout.tooManyFromNetwork": CheckoutForm,
}

// withFormError composes a page with the form's error line showing c's
// text for key.
func withFormError(compose func(Context) Page, form, key string) func(Context) Page {
	return func(c Context) Page {
		p := compose(c)
		show := func(n *ui.Node) {
			if n.Type == ui.NodeTypeFormError && n.Form == form {
				*n = ui.Node{Type: "banner", Tone: "danger", Text: c.T(key)}
			}
		}
		eachNode(p.Screen, show)
		for _, d := range p.Overlays {
			eachNode(d, show)
		}
		return p
	}
}

// eachNode calls f on n and every node under it.
func eachNode(n *ui.Node, f func(*ui.Node)) {
	if n == nil {
		return
	}
	f(n)
	for _, c := range n.Children {
		eachNode(c, f)
	}
}
