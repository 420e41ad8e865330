package main

// Object-store drivers for run inputs and outputs: s3:// and gs:// URLs
// (file:// and local paths need none). internal/location, which opens
// them with aem's retries, links both already; these imports say so
// here. Credentials come from the usual AWS and Google environment
// (AWS_PROFILE, GOOGLE_APPLICATION_CREDENTIALS, ...).
import (
	_ "gocloud.dev/blob/gcsblob"
	_ "gocloud.dev/blob/s3blob"
)
