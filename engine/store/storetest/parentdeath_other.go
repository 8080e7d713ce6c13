//go:build !linux

package storetest

import "syscall"

// parentDeath is Linux's alone; elsewhere a test binary that dies leaves its
// glimpse-testdb running until it is stopped by hand.
func parentDeath() *syscall.SysProcAttr { return nil }
