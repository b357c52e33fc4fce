// Package program is what a project's Program uses to declare its
// resources: the Context, declared Resources, Outputs and their Apply, All,
// Val and Secret, Inputs, StackReferences and the resource options.
//
// The engine runs a Program through Run, which returns the program's
// Declarations: the engine reads each declared resource there (its type,
// name, URN, options, parent, dependencies and resolved inputs) and records
// each result there (Declarations.Finish), which is what dependents' Outputs
// then read. A Program never holds its Declarations (it is given only a
// *Context), so it cannot record results.
//
// It may import the standard library and engine/resource only; the engine
// imports it, never the other way around.
package program
