package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Workspace is a Fabric workspace.
type Workspace struct {
	ID          string
	DisplayName string
	Description string
	CapacityID  string
	CreatedAt   time.Time
}

// Role is a workspace role, ordered by power.
type Role int

// Workspace roles, weakest first. RoleNone means no assignment.
const (
	RoleNone Role = iota
	RoleViewer
	RoleContributor
	RoleMember
	RoleAdmin
)

var roleNames = [...]string{"", "Viewer", "Contributor", "Member", "Admin"}

// String returns Fabric's spelling of the role.
func (r Role) String() string { return roleNames[r] }

// ParseRole parses Fabric's role names (case-insensitive).
func ParseRole(s string) (Role, bool) {
	for i, n := range roleNames {
		if i > 0 && equalFold(n, s) {
			return Role(i), true
		}
	}
	return RoleNone, false
}

func equalFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i]|0x20, b[i]|0x20
		if x != y {
			return false
		}
	}
	return true
}

// RoleAssignment grants a principal a role in a workspace.
type RoleAssignment struct {
	WorkspaceID   string
	PrincipalID   string
	PrincipalType string
	Role          Role
}

// CreateWorkspace inserts ws and makes admin its Admin, atomically.
// A display name already used (case-insensitive) is ErrConflict.
func (s *Store) CreateWorkspace(ctx context.Context, ws Workspace, admin RoleAssignment) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO workspaces(id, display_name, description, capacity_id, created_at) VALUES(?,?,?,?,?)`,
			ws.ID, ws.DisplayName, ws.Description, ws.CapacityID, ws.CreatedAt.UTC().Format(time.RFC3339Nano))
		if isUnique(err) {
			return ErrConflict
		} else if err != nil {
			return fmt.Errorf("insert workspace: %w", err)
		}
		admin.WorkspaceID, admin.Role = ws.ID, RoleAdmin
		return insertRole(ctx, tx, admin)
	})
}

func scanWorkspace(sc interface{ Scan(...any) error }) (Workspace, int64, error) {
	var ws Workspace
	var seq int64
	var created string
	err := sc.Scan(&seq, &ws.ID, &ws.DisplayName, &ws.Description, &ws.CapacityID, &created)
	ws.CreatedAt, _ = time.Parse(time.RFC3339Nano, created)
	return ws, seq, err
}

const wsCols = `seq, id, display_name, description, capacity_id, created_at`

// GetWorkspace returns the workspace with id, or ErrNotFound.
// It is served from the read cache while the store has not been written
// since it was read (cache.go).
func (s *Store) GetWorkspace(ctx context.Context, id string) (Workspace, error) {
	k := cacheKey{kind: cachedWorkspace, a: id}
	if v, ok := s.db.cache.get(k); ok {
		return v.(Workspace), nil
	}
	g := s.db.cache.now()
	ws, _, err := scanWorkspace(s.db.QueryRowContext(ctx, `SELECT `+wsCols+` FROM workspaces WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return ws, ErrNotFound
	} else if err == nil {
		s.db.cache.put(k, ws, g)
	}
	return ws, err
}

// ListWorkspaces returns the workspaces in which principal holds one of
// roles (any role when roles is empty), in creation order, and the cursor of
// the next page (0 on the last).
func (s *Store) ListWorkspaces(ctx context.Context, principal string, roles []Role, p Page) ([]Workspace, int64, error) {
	q := `SELECT ` + wsCols + ` FROM workspaces WHERE id IN (SELECT workspace_id FROM role_assignments WHERE principal_id = ?`
	args := []any{principal}
	if len(roles) > 0 {
		q += ` AND role IN (`
		for i, r := range roles {
			if i > 0 {
				q += ","
			}
			q += "?"
			args = append(args, r.String())
		}
		q += `)`
	}
	q += `)`
	tail, targs := p.clause()
	rows, err := s.db.QueryContext(ctx, q+tail, append(args, targs...)...)
	if err != nil {
		return nil, 0, fmt.Errorf("list workspaces: %w", err)
	}
	defer rows.Close()
	var out []Workspace
	var seqs []int64
	for rows.Next() {
		ws, seq, err := scanWorkspace(rows)
		if err != nil {
			return nil, 0, fmt.Errorf("list workspaces: %w", err)
		}
		out, seqs = append(out, ws), append(seqs, seq)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("list workspaces: %w", err)
	}
	out, next := trim(out, seqs, p)
	return out, next, nil
}

// UpdateWorkspace stores ws's display name and description.
func (s *Store) UpdateWorkspace(ctx context.Context, ws Workspace) error {
	res, err := s.db.ExecContext(ctx, `UPDATE workspaces SET display_name = ?, description = ? WHERE id = ?`, ws.DisplayName, ws.Description, ws.ID)
	if isUnique(err) {
		return ErrConflict
	} else if err != nil {
		return fmt.Errorf("update workspace: %w", err)
	}
	return affected(res)
}

// DeleteWorkspace removes the workspace with its role assignments and items.
func (s *Store) DeleteWorkspace(ctx context.Context, id string) error {
	res, err := s.db.ExecContext(ctx, `DELETE FROM workspaces WHERE id = ?`, id)
	if err != nil {
		return fmt.Errorf("delete workspace: %w", err)
	}
	return affected(res)
}

func affected(res sql.Result) error {
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n == 0 {
		return ErrNotFound
	}
	return nil
}
