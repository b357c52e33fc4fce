package resource

import "strings"

// URN is a resource's unique name: urn:pulumi:<stack>::<project>::<qualified type>::<name>.
type URN string

// RootURN returns the URN of a project's root stack resource on stack
// (pulumi:pulumi:Stack named <project>-<stack>, as Pulumi names it).
func RootURN(project, stack string) URN {
	return NewURN(stack, project, "", RootStackType, project+"-"+stack)
}

// NewURN builds the URN of a resource of type typ named name in project and
// stack. parentType is the type of the resource's parent ("" for none, or for
// the root stack resource); it is prefixed to the type with "$", as Pulumi does.
func NewURN(stack, project, parentType, typ, name string) URN {
	qualified := typ
	if parentType != "" && parentType != RootStackType {
		qualified = parentType + "$" + typ
	}
	return URN("urn:pulumi:" + stack + "::" + project + "::" + qualified + "::" + name)
}

// RootStackType is the type token of the root resource of every stack.
const RootStackType = "pulumi:pulumi:Stack"

// parts splits the URN into stack, project, qualified type and name.
func (u URN) parts() (stack, project, qtype, name string, ok bool) {
	s := string(u)
	if !strings.HasPrefix(s, "urn:pulumi:") {
		return "", "", "", "", false
	}
	fields := strings.SplitN(strings.TrimPrefix(s, "urn:pulumi:"), "::", 4)
	if len(fields) != 4 {
		return "", "", "", "", false
	}
	return fields[0], fields[1], fields[2], fields[3], true
}

// Valid reports whether the URN has the urn:pulumi:stack::project::type::name shape.
func (u URN) Valid() bool { _, _, _, _, ok := u.parts(); return ok }

// Stack returns the stack part of the URN.
func (u URN) Stack() string { s, _, _, _, _ := u.parts(); return s }

// Project returns the project part of the URN.
func (u URN) Project() string { _, p, _, _, _ := u.parts(); return p }

// QualifiedType returns the type with its parents' types prefixed ("a$b").
func (u URN) QualifiedType() string { _, _, q, _, _ := u.parts(); return q }

// Type returns the resource's own type token, without parent types.
func (u URN) Type() string {
	q := u.QualifiedType()
	if i := strings.LastIndex(q, "$"); i >= 0 {
		return q[i+1:]
	}
	return q
}

// Name returns the resource's name.
func (u URN) Name() string { _, _, _, n, _ := u.parts(); return n }

// Package returns the package of a type token ("random" for
// "random:index/randomString:RandomString").
func Package(typ string) string {
	if i := strings.Index(typ, ":"); i >= 0 {
		return typ[:i]
	}
	return typ
}
