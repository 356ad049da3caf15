package guard

// Abandon leaves a folder's writer as a kill would: its temporary folder
// stays, its locks go.
func Abandon(f *Folder) {
	f.tmp.release()
	if f.lock != nil {
		f.lock.Close()
		f.lock = nil
	}
}
