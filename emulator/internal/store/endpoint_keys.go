package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// EndpointKeys are the shared access keys of one CustomEndpoint node (a
// source or a destination of an Eventstream definition): Fabric's
// connection strings carry KeyName and one of the two keys.
type EndpointKeys struct {
	NodeID        string
	EventstreamID string
	KeyName       string
	Primary       string
	Secondary     string
	CreatedAt     time.Time
}

const endpointKeyCols = `node_id, eventstream_id, key_name, primary_key, secondary_key, created_at`

func scanEndpointKeys(row *sql.Row) (EndpointKeys, error) {
	var k EndpointKeys
	var created string
	err := row.Scan(&k.NodeID, &k.EventstreamID, &k.KeyName, &k.Primary, &k.Secondary, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return k, ErrNotFound
	} else if err != nil {
		return k, fmt.Errorf("read endpoint keys: %w", err)
	}
	k.CreatedAt, _ = time.Parse(time.RFC3339Nano, created)
	return k, nil
}

// PutEndpointKeys inserts k unless the node already has keys, and returns
// the node's keys either way; a key name in use is ErrConflict.
func (s *Store) PutEndpointKeys(ctx context.Context, k EndpointKeys) (EndpointKeys, error) {
	_, err := s.db.ExecContext(ctx, `INSERT INTO endpoint_keys(`+endpointKeyCols+`) VALUES(?,?,?,?,?,?) ON CONFLICT(node_id) DO NOTHING`,
		k.NodeID, k.EventstreamID, k.KeyName, k.Primary, k.Secondary, k.CreatedAt.UTC().Format(time.RFC3339Nano))
	if isUnique(err) {
		return k, ErrConflict
	} else if err != nil {
		return k, fmt.Errorf("insert endpoint keys: %w", err)
	}
	return s.GetEndpointKeys(ctx, k.NodeID)
}

// GetEndpointKeys returns the keys of node, or ErrNotFound.
func (s *Store) GetEndpointKeys(ctx context.Context, nodeID string) (EndpointKeys, error) {
	return scanEndpointKeys(s.db.QueryRowContext(ctx, `SELECT `+endpointKeyCols+` FROM endpoint_keys WHERE node_id = ?`, nodeID))
}

// EndpointKeysByName returns the keys whose key name is name, or ErrNotFound.
func (s *Store) EndpointKeysByName(ctx context.Context, name string) (EndpointKeys, error) {
	return scanEndpointKeys(s.db.QueryRowContext(ctx, `SELECT `+endpointKeyCols+` FROM endpoint_keys WHERE key_name = ?`, name))
}

// UpdateEndpointKeys replaces the two keys of k.NodeID.
func (s *Store) UpdateEndpointKeys(ctx context.Context, k EndpointKeys) error {
	res, err := s.db.ExecContext(ctx, `UPDATE endpoint_keys SET primary_key = ?, secondary_key = ? WHERE node_id = ?`, k.Primary, k.Secondary, k.NodeID)
	if err != nil {
		return fmt.Errorf("update endpoint keys: %w", err)
	}
	return affected(res)
}

// DeleteEndpointKeys forgets the keys of node (none is not an error).
func (s *Store) DeleteEndpointKeys(ctx context.Context, nodeID string) error {
	if _, err := s.db.ExecContext(ctx, `DELETE FROM endpoint_keys WHERE node_id = ?`, nodeID); err != nil {
		return fmt.Errorf("delete endpoint keys: %w", err)
	}
	return nil
}
