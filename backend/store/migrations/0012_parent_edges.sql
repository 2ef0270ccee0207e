-- A node's parent edge was a row of edges beside the node's own parent
-- column: one more write per node for a fact stored already. Graph reads the
-- parent edges from nodes.parent; the stored copies go.
DELETE FROM edges WHERE kind = 'parent';
