package store

// SetCommitStep sets the hook Commit calls after each of its steps, for the
// kill tests of the external test package.
func SetCommitStep(f func(int)) { commitStep = f }

// CommitSteps is the number of steps of Commit.
const CommitSteps = 8

// SetRowsPerFile sets the rows from which a part file is full (RowsPerFile)
// until the test ends, for tests of big parts.
func SetRowsPerFile(t interface{ Cleanup(func()) }, n int64) {
	old := rowsPerFile
	rowsPerFile = n
	t.Cleanup(func() { rowsPerFile = old })
}
