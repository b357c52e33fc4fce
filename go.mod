module github.com/runnerhq/runner

go 1.26.8
