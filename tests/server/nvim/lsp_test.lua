-- Neovim's own LSP client (0.7, as Debian ships it) against `gpulint server`: it opens a
-- training script, receives gpulint's diagnostics, applies the code action that fixes one,
-- sees the finding go, and hovers another. What it saw goes to $GPULINT_RESULT for run.sh.
local result = {}
local function finish(ok, why)
  local f = io.open(os.getenv("GPULINT_RESULT"), "w")
  f:write(ok and "ok\n" or ("fail: " .. why .. "\n"))
  f:write(table.concat(result, "\n"), "\n")
  f:close()
  vim.cmd("qa!")
end

local function code_of(d)
  return d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code)
end

local function find(bufnr, code)
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    if code_of(d) == code then return d end
  end
end

local dir = os.getenv("GPULINT_WORKDIR")
vim.cmd("edit " .. dir .. "/train.py")
local bufnr = vim.api.nvim_get_current_buf()
local client_id = vim.lsp.start_client({
  name = "gpulint",
  cmd = { os.getenv("GPULINT_BINARY"), "server" },
  root_dir = dir,
})
vim.lsp.buf_attach_client(bufnr, client_id)

if not vim.wait(20000, function() return find(bufnr, "GL202") ~= nil end, 20) then
  return finish(false, "no GL202 diagnostic arrived")
end
local codes = {}
for _, d in ipairs(vim.diagnostic.get(bufnr)) do table.insert(codes, code_of(d)) end
table.sort(codes)
table.insert(result, "diagnostics: " .. table.concat(codes, " "))

local pin = find(bufnr, "GL202")
local params = {
  textDocument = vim.lsp.util.make_text_document_params(bufnr),
  range = {
    start = { line = pin.lnum, character = pin.col },
    ["end"] = { line = pin.end_lnum, character = pin.end_col },
  },
  context = { diagnostics = {} },
}
local replies = vim.lsp.buf_request_sync(bufnr, "textDocument/codeAction", params, 20000) or {}
local applied = nil
for _, reply in pairs(replies) do
  for _, action in ipairs(reply.result or {}) do
    table.insert(result, "action: " .. action.title)
    if applied == nil and action.title:match("^GL202: set") then
      vim.lsp.util.apply_workspace_edit(action.edit, "utf-16")
      applied = action.title
    end
  end
end
if applied == nil then return finish(false, "no GL202 fix among the code actions") end
table.insert(result, "applied: " .. applied)
table.insert(result, "line: " .. vim.api.nvim_buf_get_lines(bufnr, pin.lnum, pin.lnum + 1, false)[1])

if not vim.wait(20000, function() return find(bufnr, "GL202") == nil end, 20) then
  return finish(false, "GL202 was still reported after its fix")
end
table.insert(result, "GL202 gone after the edit")

local item = find(bufnr, "GL101")
if item == nil then return finish(false, "no GL101 diagnostic") end
local hover = vim.lsp.buf_request_sync(bufnr, "textDocument/hover", {
  textDocument = vim.lsp.util.make_text_document_params(bufnr),
  position = { line = item.lnum, character = item.col + 2 },
}, 20000) or {}
for _, reply in pairs(hover) do
  if reply.result then
    for _, line in ipairs(vim.split(reply.result.contents.value, "\n")) do
      if line:match("^%*%*GL") then table.insert(result, "hover: " .. line) end
    end
  end
end
finish(true)
