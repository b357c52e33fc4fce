package bucket

import (
	"context"
	"strings"

	"github.com/runnerhq/runner/engine/backend"
)

// A run across a stack's projects holds the stack's lock, and every run
// that writes a journal holds it too (a journal is written only by up,
// refresh and destroy, which take it first). So while this process holds
// the stack lock, no other process adds journal segments to the stack: the
// projects with segments are listed once, when the lock is taken (one LIST
// of the stack's prefix for all its projects), and a project not listed
// then, nor journaled since by this process, has none to read (Load lists
// nothing for it). A lock found lost ends this trust.

// journalIndex names the projects of a stack with journal segments, as
// listed when lock (the stack's, held by this process) was taken, plus
// those this process journaled since.
type journalIndex struct {
	lock     *objLock
	projects map[string]bool
}

// indexJournals lists the journal segments of every project of stack,
// under its lock l (just taken). A listing that fails leaves no index:
// each project's journal is then listed on its own.
func (s *Store) indexJournals(ctx context.Context, stack string, l *objLock) {
	prefix := backend.RunnerStackPrefix(stack)
	list, err := s.obj.List(ctx, prefix)
	if err != nil {
		return
	}
	idx := &journalIndex{lock: l, projects: map[string]bool{}}
	for _, o := range list {
		parts := strings.Split(strings.TrimPrefix(o.Key, prefix), "/")
		if len(parts) > 2 && parts[1] == "journal" {
			idx.projects[parts[0]] = true
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.journals[stack] = idx
}

// noJournal reports whether (project, stack) is known to have no journal
// segments: this process holds the stack's lock, which it listed them
// under, and journaled nothing of project since.
func (s *Store) noJournal(project, stack string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	idx := s.journals[stack]
	if idx == nil {
		return false
	}
	if s.held[stackLockKey(stack)] != idx.lock {
		delete(s.journals, stack) // released (or another taking of it)
		return false
	}
	select {
	case <-idx.lock.Lost():
		delete(s.journals, stack)
		return false
	default:
	}
	return !idx.projects[project]
}

// journaled notes that this process is writing a journal segment of
// (project, stack).
func (s *Store) journaled(project, stack string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if idx := s.journals[stack]; idx != nil {
		idx.projects[project] = true
	}
}

// holds reports whether this process holds the (project, stack) lock, not
// known to be lost.
func (s *Store) holds(project, stack string) bool {
	s.mu.Lock()
	l := s.held[projectLockKey(project, stack)]
	s.mu.Unlock()
	if l == nil {
		return false
	}
	select {
	case <-l.Lost():
		return false
	default:
		return true
	}
}
