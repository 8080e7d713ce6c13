package screens

// goldenMail is the dev mailbox of the golden cases: one mail per status.
func goldenMail() []DevMailItem {
	return []DevMailItem{
		{ID: "activation:sub_123", To: "ann@example.com", Subject: "Create your account", Status: "queued",
			Time: "Nov 1, 2026, 12:00 UTC", Attempts: 1, LastError: "smtp: dial tcp 127.0.0.1:1025: connection refused",
			Text: "Your subscription is ready\n\nHello,\n\nChoose a password for ann@example.com to start using the app.\n\n" +
				"Create my account:\nhttp://127.0.0.1:8080/access-recovery?id=sub_123\n\n-- \nYou get this mail because of your subscription.\n" +
				"Terms: https://glimpse.example/terms-of-use"},
		{ID: "report:u1", To: "demo@example.com", Subject: "Your profile report", Status: "sent",
			Time: "Nov 1, 2026, 11:00 UTC", Attempts: 1, Text: "Your profile report is here", Attachments: []string{"profile-report.pdf"}},
		{ID: "receipt:ch_1", To: "demo@example.com", Subject: "Your receipt", Status: "failed", Time: "Oct 31, 2026, 09:30 UTC", Attempts: 5},
	}
}
