//go:build !linux

package storetest

import "syscall"

// parentDeath is Linux's alone; elsewhere a test binary that dies leaves its
// db-server running until it is stopped by hand.
func parentDeath() *syscall.SysProcAttr { return nil }
