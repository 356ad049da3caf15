//go:build !linux

package guard

import "syscall"

const noFollow = syscall.O_NOFOLLOW

func renameNoReplace(old, new string) error { return renameChecked(old, new) }
