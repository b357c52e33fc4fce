package cluster

import "errors"

var errEmpty = errors.New("must not be empty")
