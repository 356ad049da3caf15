package store

// SetCommitStep sets the hook Commit calls after each of its steps, for the
// kill tests of the external test package.
func SetCommitStep(f func(int)) { commitStep = f }

// CommitSteps is the number of steps of Commit.
const CommitSteps = 8
