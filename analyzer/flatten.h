#ifndef GPULINT_FLATTEN_H
#define GPULINT_FLATTEN_H

/* A tree-sitter tree's visible nodes copied into one array, in document order, read straight
 * from the runtime's subtrees. A TSTreeCursor yields the same nodes, but re-derives its place
 * from its stack on every move, which costs more than the rest of gpulint's walk. */

#include <stdbool.h>
#include <stdint.h>
#include <tree_sitter/api.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GPULINT_FLAT_NONE UINT32_MAX

enum { GPULINT_FLAT_NAMED = 1, GPULINT_FLAT_MISSING = 2, GPULINT_FLAT_HAS_ERROR = 4 };

typedef struct {
  uint32_t start, end;                        /* bytes */
  uint32_t parent, first_child, next_sibling; /* indices; GPULINT_FLAT_NONE for none */
  TSSymbol symbol;                            /* as ts_node_symbol reports it */
  TSFieldId field;                            /* as ts_tree_cursor_current_field_id does */
  uint8_t flags;
} GpulintFlatNode;

typedef struct {
  GpulintFlatNode* nodes;
  uint32_t size;
} GpulintFlatTree;

/* Copies `tree` and deletes it, as ts_tree_delete does, in the same pass. False, with nothing
 * to free, when memory runs out; the tree is deleted either way. */
bool gpulint_flatten(TSTree* tree, GpulintFlatTree* out);
void gpulint_flat_tree_free(GpulintFlatTree* tree);

#ifdef __cplusplus
}
#endif

#endif
