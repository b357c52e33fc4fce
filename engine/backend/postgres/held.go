package postgres

import "fmt"

// The locks this process holds, for fencing the journals of their
// operations and for Close.

// remember records a lock this process took, for the journals that its
// operation opens (fencing).
func (s *Store) remember(l *heldLock) {
	s.heldMu.Lock()
	defer s.heldMu.Unlock()
	if s.held == nil {
		s.held, s.all = map[[2]string]*heldLock{}, map[*heldLock]bool{}
	}
	s.held[[2]string{l.stack, l.project}] = l
	s.all[l] = true
}

func (s *Store) forget(l *heldLock) {
	s.heldMu.Lock()
	defer s.heldMu.Unlock()
	if s.held[[2]string{l.stack, l.project}] == l {
		delete(s.held, [2]string{l.stack, l.project})
	}
	delete(s.all, l)
}

// dropLocks ends the sessions of the locks still held (Close).
func (s *Store) dropLocks() {
	s.heldMu.Lock()
	all := s.all
	s.all = nil
	s.heldMu.Unlock()
	for l := range all {
		l.mu.Lock()
		if l.conn != nil {
			discard(l.conn)
			l.conn = nil
		}
		l.mu.Unlock()
	}
}

// holding returns the lock this process holds on (stack, project).
func (s *Store) holding(stack, project string) (*heldLock, error) {
	s.heldMu.Lock()
	defer s.heldMu.Unlock()
	if l := s.held[[2]string{stack, project}]; l != nil {
		return l, nil
	}
	return nil, fmt.Errorf("this process does not hold the lock of stack %s of project %s; take it first", stack, project)
}

// stackLock returns this process's lock of the whole stack, under which a
// project's lock is taken (nil for the stack's own lock, or when none is
// held).
func (s *Store) stackLock(stack, project string) *heldLock {
	if project == "" {
		return nil
	}
	s.heldMu.Lock()
	defer s.heldMu.Unlock()
	return s.held[[2]string{stack, ""}]
}
