package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

func insertRole(ctx context.Context, tx *sql.Tx, ra RoleAssignment) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO role_assignments(workspace_id, principal_id, principal_type, role) VALUES(?,?,?,?)`,
		ra.WorkspaceID, ra.PrincipalID, ra.PrincipalType, ra.Role.String())
	if isUnique(err) {
		return ErrConflict
	} else if err != nil {
		return fmt.Errorf("insert role assignment: %w", err)
	}
	return nil
}

// AddRole inserts a role assignment; a principal that already has a role in
// the workspace is ErrConflict.
func (s *Store) AddRole(ctx context.Context, ra RoleAssignment) error {
	return s.tx(ctx, func(tx *sql.Tx) error { return insertRole(ctx, tx, ra) })
}

// RoleOf returns principal's role in the workspace, RoleNone when it has
// none. It is served from the read cache while the store has not been
// written since it was read (cache.go).
func (s *Store) RoleOf(ctx context.Context, workspaceID, principal string) (Role, error) {
	k := cacheKey{kind: cachedRole, a: workspaceID, b: principal}
	if v, ok := s.db.cache.get(k); ok {
		return v.(Role), nil
	}
	g := s.db.cache.now()
	r, err := s.roleOf(ctx, workspaceID, principal)
	if err == nil {
		s.db.cache.put(k, r, g)
	}
	return r, err
}

// roleOf reads principal's role in the workspace from the database.
func (s *Store) roleOf(ctx context.Context, workspaceID, principal string) (Role, error) {
	var name string
	err := s.db.QueryRowContext(ctx, `SELECT role FROM role_assignments WHERE workspace_id = ? AND principal_id = ?`, workspaceID, principal).Scan(&name)
	if errors.Is(err, sql.ErrNoRows) {
		return RoleNone, nil
	} else if err != nil {
		return RoleNone, fmt.Errorf("read role: %w", err)
	}
	r, _ := ParseRole(name)
	return r, nil
}

// GetRole returns the assignment of principal in the workspace, or ErrNotFound.
func (s *Store) GetRole(ctx context.Context, workspaceID, principal string) (RoleAssignment, error) {
	ra := RoleAssignment{WorkspaceID: workspaceID, PrincipalID: principal}
	var name string
	err := s.db.QueryRowContext(ctx, `SELECT principal_type, role FROM role_assignments WHERE workspace_id = ? AND principal_id = ?`,
		workspaceID, principal).Scan(&ra.PrincipalType, &name)
	if errors.Is(err, sql.ErrNoRows) {
		return ra, ErrNotFound
	} else if err != nil {
		return ra, fmt.Errorf("read role: %w", err)
	}
	ra.Role, _ = ParseRole(name)
	return ra, nil
}

// ListRoles returns a page of the workspace's role assignments.
func (s *Store) ListRoles(ctx context.Context, workspaceID string, p Page) ([]RoleAssignment, int64, error) {
	tail, args := p.clause()
	rows, err := s.db.QueryContext(ctx, `SELECT seq, principal_id, principal_type, role FROM role_assignments WHERE workspace_id = ?`+tail,
		append([]any{workspaceID}, args...)...)
	if err != nil {
		return nil, 0, fmt.Errorf("list roles: %w", err)
	}
	defer rows.Close()
	var out []RoleAssignment
	var seqs []int64
	for rows.Next() {
		ra := RoleAssignment{WorkspaceID: workspaceID}
		var seq int64
		var name string
		if err := rows.Scan(&seq, &ra.PrincipalID, &ra.PrincipalType, &name); err != nil {
			return nil, 0, fmt.Errorf("list roles: %w", err)
		}
		ra.Role, _ = ParseRole(name)
		out, seqs = append(out, ra), append(seqs, seq)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("list roles: %w", err)
	}
	out, next := trim(out, seqs, p)
	return out, next, nil
}

// UpdateRole changes an existing assignment's role.
func (s *Store) UpdateRole(ctx context.Context, ra RoleAssignment) error {
	res, err := s.db.ExecContext(ctx, `UPDATE role_assignments SET role = ? WHERE workspace_id = ? AND principal_id = ?`,
		ra.Role.String(), ra.WorkspaceID, ra.PrincipalID)
	if err != nil {
		return fmt.Errorf("update role: %w", err)
	}
	return affected(res)
}

// DeleteRole removes an assignment.
func (s *Store) DeleteRole(ctx context.Context, workspaceID, principal string) error {
	res, err := s.db.ExecContext(ctx, `DELETE FROM role_assignments WHERE workspace_id = ? AND principal_id = ?`, workspaceID, principal)
	if err != nil {
		return fmt.Errorf("delete role: %w", err)
	}
	return affected(res)
}

// CountAdmins returns how many Admins the workspace has.
func (s *Store) CountAdmins(ctx context.Context, workspaceID string) (int, error) {
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM role_assignments WHERE workspace_id = ? AND role = 'Admin'`, workspaceID).Scan(&n)
	return n, err
}
