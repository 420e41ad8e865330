package batch

import (
	_ "github.com/parquet-go/parquet-go"
	_ "gocloud.dev/blob"
	_ "gocloud.dev/blob/fileblob"
	_ "gocloud.dev/blob/memblob"
	_ "golang.org/x/sync/errgroup"
)
