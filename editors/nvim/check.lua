-- The headless check behind .ci/editors.sh: with init.lua loaded and a file
-- open, wait for fplint's diagnostics, print them, and exit 0 only when the
-- expected code is among them and the server shut down cleanly.
--   nvim --headless -u editors/nvim/init.lua -c 'luafile editors/nvim/check.lua' FILE
local want = os.getenv('FPLINT_EXPECT') or 'FP001'
local timeout_ms = tonumber(os.getenv('FPLINT_TIMEOUT_MS') or '') or 30000
local buf = vim.api.nvim_get_current_buf()
local name = vim.fn.fnamemodify(vim.api.nvim_buf_get_name(buf), ':.')

local function say(line)
  io.stdout:write(line .. '\n')
end

local started = vim.loop.hrtime()
local found = vim.wait(timeout_ms, function()
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    if d.code == want then
      return true
    end
  end
  return false
end, 20)
local ms = math.floor((vim.loop.hrtime() - started) / 1e6)

local v = vim.version()
say(string.format('nvim %d.%d.%d, filetype %s', v.major, v.minor, v.patch, vim.bo[buf].filetype))
for _, d in ipairs(vim.diagnostic.get(buf)) do
  say(string.format('%s:%d:%d: %s %s [%s]', name, d.lnum + 1, d.col + 1, tostring(d.code), d.message, tostring(d.source)))
end

local clients = vim.lsp.get_active_clients()
local ok = found
if not found then
  say(string.format('no %s diagnostic within %d ms (%d client(s) attached)', want, timeout_ms, #clients))
else
  say(string.format('%s reported %d ms after the check started', want, ms))
end

-- Stop the server the way an editor does (shutdown, exit) and wait for it.
vim.lsp.stop_client(clients)
local stopped = vim.wait(5000, function()
  return #vim.lsp.get_active_clients() == 0
end, 20)
if not stopped then
  say('the server did not stop within 5 s of shutdown')
  ok = false
end

if ok then
  vim.cmd('qall!')
else
  vim.cmd('cquit 1')
end
