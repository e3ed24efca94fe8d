#include "flatten.h"

#include <stdlib.h>

#include "alloc.h"
#include "atomic.h"
#include "language.h"
#include "subtree.h"
#include "tree.h"

/* A subtree whose children are being emitted. Hidden subtrees (grammar rules starting with
 * `_`) get a frame too: their children belong to the nearest visible ancestor. */
typedef struct {
  const Subtree* children;
  uint32_t child_count;
  const TSSymbol* aliases;
  const TSFieldMapEntry *fields, *fields_end;
  uint32_t child, structural_child; /* the next child; structural ones exclude extras */
  uint32_t position;                /* start byte of the next child */
  uint32_t visible_parent;
  uint32_t owner;            /* the frame of visible_parent, which holds its last child */
  uint32_t last_child;       /* of this frame's own node, when it is visible */
  TSFieldId inherited_field; /* a hidden subtree's own field, which its children fill */
  bool owned;                /* the last reference to this subtree: freed once copied */
} Frame;

typedef struct {
  GpulintFlatNode* nodes;
  uint32_t size, capacity;
  Frame* frames;
  uint32_t depth, frame_capacity;
  SubtreePool pool; /* for ts_subtree_release, of subtrees the copy does not descend into */
} Walk;

/* Drops an owned parent's reference to `s`, which the copy descends into: true when it was the
 * last one, so the copy frees it. A count of one needs no atomic decrement: only this reference
 * remains, and it is being given up. */
static inline bool take(Subtree s) {
  if (s.data.is_inline) return false;
  if (s.ptr->ref_count == 1) return true;
  return atomic_dec((volatile uint32_t*)&s.ptr->ref_count) == 0;
}

/* Frees a subtree the copy has descended into and owns, once its children are dealt with. */
static void free_owned(const Frame* f) {
  if (f->owned) ts_free((void*)f->children);
}

/* After running out of memory: releases what the frames still hold. */
static void unwind(Walk* w) {
  while (w->depth > 0) {
    const Frame* f = &w->frames[--w->depth];
    if (!f->owned) continue;
    for (uint32_t i = f->child; i < f->child_count; ++i)
      ts_subtree_release(&w->pool, f->children[i]);
    free_owned(f);
  }
}

static bool grow(Walk* w, uint32_t capacity) {
  GpulintFlatNode* nodes = realloc(w->nodes, capacity * sizeof *nodes);
  if (!nodes) return false;
  w->nodes = nodes;
  w->capacity = capacity;
  return true;
}

/* `owner` is the frame holding visible_parent's children; NEW_OWNER makes this frame that. */
#define NEW_OWNER UINT32_MAX

/* push and emit run once per node: inlined, the walk's loads of the child are shared with them
 * (a quarter of the copy's time, measured side by side). */
static inline __attribute__((always_inline)) bool push(Walk* w, const TSLanguage* language,
                                                       const Subtree* subtree, uint32_t position,
                                                       uint32_t visible_parent, uint32_t owner,
                                                       TSFieldId inherited_field) {
  if (w->depth == w->frame_capacity) {
    uint32_t capacity = w->frame_capacity ? w->frame_capacity * 2 : 64;
    Frame* frames = realloc(w->frames, capacity * sizeof *frames);
    if (!frames) return false;
    w->frames = frames;
    w->frame_capacity = capacity;
  }
  uint32_t self = w->depth++;
  Frame* f = &w->frames[self];
  uint32_t production = subtree->ptr->production_id;
  f->children = ts_subtree_children(*subtree);
  f->child_count = subtree->ptr->child_count;
  f->aliases = ts_language_alias_sequence(language, production);
  ts_language_field_map(language, production, &f->fields, &f->fields_end);
  f->child = f->structural_child = 0;
  f->position = position;
  f->visible_parent = visible_parent;
  f->owner = owner == NEW_OWNER ? self : owner;
  f->last_child = GPULINT_FLAT_NONE;
  f->inherited_field = inherited_field;
  f->owned = false; /* until the caller takes the subtree */
  return true;
}

/* `last_child` is the parent's last child so far, updated here; null for the root. */
static inline __attribute__((always_inline)) uint32_t emit(Walk* w, const TSLanguage* language,
                                                           Subtree s, TSSymbol alias,
                                                           uint32_t start, uint32_t parent,
                                                           uint32_t* last_child, TSFieldId field) {
  TSSymbol symbol = alias ? alias : ts_subtree_symbol(s);
  bool named = alias ? ts_language_symbol_metadata(language, alias).named : ts_subtree_named(s);
  uint32_t index = w->size++;
  GpulintFlatNode* n = &w->nodes[index];
  n->start = start;
  n->end = start + ts_subtree_size(s).bytes;
  n->parent = parent;
  n->first_child = n->next_sibling = GPULINT_FLAT_NONE;
  n->symbol = symbol == ts_builtin_sym_error ? symbol : language->public_symbol_map[symbol];
  n->field = field;
  n->flags = (named ? GPULINT_FLAT_NAMED : 0) | (ts_subtree_missing(s) ? GPULINT_FLAT_MISSING : 0) |
             (ts_subtree_error_cost(s) > 0 ? GPULINT_FLAT_HAS_ERROR : 0);
  if (last_child) {
    if (*last_child == GPULINT_FLAT_NONE) {
      w->nodes[parent].first_child = index;
    } else {
      w->nodes[*last_child].next_sibling = index;
    }
    *last_child = index;
  }
  return index;
}

/* The copy, which releases the tree's references as it goes: a subtree whose last reference
 * it drops is freed once its children are copied, as ts_tree_delete would free it, but without
 * a second pass over the tree. False when memory runs out; the tree is released either way. */
static bool walk(Walk* w, TSTree* tree, uint32_t* root_last_child) {
  const TSLanguage* language = tree->language;
  Subtree root = tree->root;
  uint32_t start = ts_subtree_padding(root).bytes;
  const bool append = w->size > 0;
  /* Room for every visible node, so the array is allocated once for a whole parse; parts
   * appended one by one grow it by half at least, so that appending stays linear. */
  uint32_t needed = w->size + ts_subtree_visible_descendant_count(root) + 1;
  if (append && needed > w->capacity && needed < w->capacity + w->capacity / 2)
    needed = w->capacity + w->capacity / 2;
  if (needed > w->capacity && !grow(w, needed)) {
    ts_subtree_release(&w->pool, root);
    return false;
  }
  if (append) {
    /* The part's root is the text's root, which the first part emitted. */
    GpulintFlatNode* text_root = &w->nodes[0];
    text_root->end = start + ts_subtree_size(root).bytes;
    if (ts_subtree_error_cost(root) > 0) text_root->flags |= GPULINT_FLAT_HAS_ERROR;
  } else {
    emit(w, language, root, 0, start, GPULINT_FLAT_NONE, NULL, 0);
  }
  if (ts_subtree_child_count(root) == 0) {
    ts_subtree_release(&w->pool, root);
    return true;
  }
  if (!push(w, language, &tree->root, start, 0, NEW_OWNER, 0)) {
    ts_subtree_release(&w->pool, root);
    return false;
  }
  w->frames[0].owned = take(root);
  w->frames[0].last_child = append ? *root_last_child : GPULINT_FLAT_NONE;
  while (w->depth > 0) {
    Frame* f = &w->frames[w->depth - 1];
    if (f->child == f->child_count) {
      if (w->depth == 1) *root_last_child = f->last_child;
      free_owned(f);
      --w->depth;
      continue;
    }
    const Subtree* children = f->children;
    /* A copy: the stores into the node array below could otherwise alias it. */
    const Subtree copy = children[f->child];
    const Subtree* child = &copy;
    uint32_t child_start = f->position;
    bool extra = ts_subtree_extra(*child);
    TSSymbol alias = 0;
    TSFieldId field = 0;
    if (!extra) {
      if (f->aliases) alias = f->aliases[f->structural_child];
      for (const TSFieldMapEntry* m = f->fields; m < f->fields_end; ++m) {
        if (!m->inherited && m->child_index == f->structural_child) {
          field = m->field_id;
          break;
        }
      }
      if (!field) field = f->inherited_field;
      ++f->structural_child;
    }
    f->position += ts_subtree_size(*child).bytes;
    if (++f->child < f->child_count) {
      f->position += ts_subtree_padding(children[f->child]).bytes;
    }
    uint32_t visible_parent = f->visible_parent, owner = f->owner;
    bool parent_owned = f->owned;
    bool has_children = ts_subtree_child_count(*child) > 0;
    bool descend = false;
    if (ts_subtree_visible(*child) || alias) {
      if (w->size == w->capacity && !grow(w, w->capacity * 2)) {
        if (parent_owned) ts_subtree_release(&w->pool, copy);
        unwind(w);
        return false;
      }
      uint32_t index = emit(w, language, *child, alias, child_start, visible_parent,
                            &w->frames[owner].last_child, field);
      if (has_children) {
        if (!push(w, language, child, child_start, index, NEW_OWNER, 0)) break;
        descend = true;
      }
    } else if (has_children && ts_subtree_visible_descendant_count(*child) > 0) {
      if (!push(w, language, child, child_start, visible_parent, owner, extra ? 0 : field)) break;
      descend = true;
    }
    /* push may have moved the frames: the new frame is the last. */
    if (!parent_owned) continue;
    if (descend) {
      w->frames[w->depth - 1].owned = take(copy);
    } else {
      ts_subtree_release(&w->pool, copy);
    }
  }
  if (w->depth == 0) return true;
  /* A frame could not be pushed: the child it was for is released with the rest. */
  Frame* f = &w->frames[w->depth - 1];
  if (f->owned) ts_subtree_release(&w->pool, f->children[f->child - 1]);
  unwind(w);
  return false;
}

bool gpulint_flatten_append(TSTree* tree, GpulintFlatTree* out) {
  Walk w = {0};
  w.nodes = out->nodes;
  w.size = out->size;
  w.capacity = out->capacity;
  w.pool = ts_subtree_pool_new(0);
  bool ok = walk(&w, tree, &out->root_last_child);
  free(w.frames);
  ts_subtree_pool_delete(&w.pool);
  /* The rest of ts_tree_delete. */
  ts_language_delete(tree->language);
  ts_free(tree->included_ranges);
  ts_free(tree);
  out->nodes = w.nodes;
  out->size = w.size;
  out->capacity = w.capacity;
  return ok;
}

bool gpulint_flatten(TSTree* tree, GpulintFlatTree* out) {
  out->size = 0;
  out->root_last_child = GPULINT_FLAT_NONE;
  return gpulint_flatten_append(tree, out);
}

uint32_t gpulint_flat_tree_splice(GpulintFlatTree* out, uint32_t parent, uint32_t prev,
                                  uint32_t next, const GpulintFlatTree* from, uint32_t first,
                                  uint32_t end) {
  if (first >= end) return prev;
  uint32_t count = end - first, base = out->size;
  if (base + count > out->capacity) {
    uint32_t capacity = out->capacity + out->capacity / 2;
    if (!gpulint_flat_tree_reserve(out, capacity < base + count ? base + count : capacity))
      return GPULINT_FLAT_NONE;
  }
  /* The copied roots' parent in `from`: every other copied node's parent is copied too. */
  uint32_t from_parent = from->nodes[first].parent, last = GPULINT_FLAT_NONE;
#define REMAP(i) ((i) == GPULINT_FLAT_NONE ? GPULINT_FLAT_NONE : (i)-first + base)
  for (uint32_t i = first; i < end; ++i) {
    GpulintFlatNode n = from->nodes[i];
    if (n.parent == from_parent) {
      n.parent = parent;
      n.next_sibling = n.next_sibling < end ? REMAP(n.next_sibling) : next;
      last = i - first + base;
    } else {
      n.parent = REMAP(n.parent);
      n.next_sibling = REMAP(n.next_sibling);
    }
    n.first_child = REMAP(n.first_child);
    out->nodes[i - first + base] = n;
  }
#undef REMAP
  if (prev == GPULINT_FLAT_NONE) {
    out->nodes[parent].first_child = base;
  } else {
    out->nodes[prev].next_sibling = base;
  }
  out->size = base + count;
  return last;
}

bool gpulint_flat_tree_reserve(GpulintFlatTree* tree, uint32_t capacity) {
  if (capacity <= tree->capacity) return true;
  GpulintFlatNode* nodes = realloc(tree->nodes, capacity * sizeof *nodes);
  if (!nodes) return false;
  tree->nodes = nodes;
  tree->capacity = capacity;
  return true;
}

void gpulint_flat_tree_free(GpulintFlatTree* tree) {
  free(tree->nodes);
  tree->nodes = NULL;
  tree->size = tree->capacity = 0;
}
