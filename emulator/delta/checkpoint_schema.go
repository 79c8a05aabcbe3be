package delta

// The classic single-file (V1) checkpoint of the Delta protocol: one
// Parquet file, <version>.checkpoint.parquet, in which every row holds
// exactly one action (protocol, metaData, txn, add or remove) in the column
// of that name, every other column null; add.stats is the same JSON string
// as in the commit files.

type cpRow struct {
	Txn      *cpTxn      `parquet:"txn,optional"`
	Add      *cpAdd      `parquet:"add,optional"`
	Remove   *cpRemove   `parquet:"remove,optional"`
	MetaData *cpMetaData `parquet:"metaData,optional"`
	Protocol *cpProtocol `parquet:"protocol,optional"`
}

type cpTxn struct {
	AppID       string `parquet:"appId"`
	Version     int64  `parquet:"version"`
	LastUpdated *int64 `parquet:"lastUpdated,optional"`
}

type cpAdd struct {
	Path             string            `parquet:"path"`
	PartitionValues  map[string]string `parquet:"partitionValues"`
	Size             int64             `parquet:"size"`
	ModificationTime int64             `parquet:"modificationTime"`
	DataChange       bool              `parquet:"dataChange"`
	Stats            *string           `parquet:"stats,optional"`
}

type cpRemove struct {
	Path              string `parquet:"path"`
	DeletionTimestamp *int64 `parquet:"deletionTimestamp,optional"`
	DataChange        bool   `parquet:"dataChange"`
}

type cpFormat struct {
	Provider string            `parquet:"provider"`
	Options  map[string]string `parquet:"options"`
}

type cpMetaData struct {
	ID               string            `parquet:"id"`
	Name             *string           `parquet:"name,optional"`
	Description      *string           `parquet:"description,optional"`
	Format           cpFormat          `parquet:"format"`
	SchemaString     string            `parquet:"schemaString"`
	PartitionColumns []string          `parquet:"partitionColumns,list"`
	Configuration    map[string]string `parquet:"configuration"`
	CreatedTime      *int64            `parquet:"createdTime,optional"`
}

type cpProtocol struct {
	MinReaderVersion int32 `parquet:"minReaderVersion"`
	MinWriterVersion int32 `parquet:"minWriterVersion"`
}

// lastCheckpoint is the content of _delta_log/_last_checkpoint.
type lastCheckpoint struct {
	Version     int64 `json:"version"`
	Size        int64 `json:"size"`
	SizeInBytes int64 `json:"sizeInBytes,omitempty"`
	NumAddFiles int64 `json:"numOfAddFiles"`
}
