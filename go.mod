module github.com/runnerhq/runner

go 1.26.8

require golang.org/x/crypto v0.58.0
