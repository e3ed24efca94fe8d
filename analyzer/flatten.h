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
  uint32_t size, capacity;
  uint32_t root_last_child; /* where gpulint_flatten_append links the next top-level node */
} GpulintFlatTree;

/* Copies `tree` into the empty `out` and deletes it, as ts_tree_delete does, in the same pass.
 * False when memory runs out; the tree is deleted either way, and `out` is to be freed. */
bool gpulint_flatten(TSTree* tree, GpulintFlatTree* out);
/* The same for the parse of a later part of the same text (its positions are the text's, as
 * a parse of included ranges gives them): the part's top-level nodes follow the root's in `out`,
 * whose root then ends where the part does. */
bool gpulint_flatten_append(TSTree* tree, GpulintFlatTree* out);
/* Copies the nodes [first, end) of `from`, whole subtrees whose roots are children of one node
 * there, to the end of `out`, as children of `out`'s node `parent` that follow its child `prev`
 * (or come first, for none) and precede its child `next` (or come last). Returns the index of
 * the last copied root, or GPULINT_FLAT_NONE when memory runs out (`out` unchanged then). */
uint32_t gpulint_flat_tree_splice(GpulintFlatTree* out, uint32_t parent, uint32_t prev,
                                  uint32_t next, const GpulintFlatTree* from, uint32_t first,
                                  uint32_t end);
/* Grows `tree`'s array to hold `capacity` nodes; false when memory runs out. */
bool gpulint_flat_tree_reserve(GpulintFlatTree* tree, uint32_t capacity);
void gpulint_flat_tree_free(GpulintFlatTree* tree);

#ifdef __cplusplus
}
#endif

#endif
