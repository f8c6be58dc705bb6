-- fplint's language server (`fplint server`) in Neovim's built-in client.
-- Neovim 0.11 and later use vim.lsp.config and vim.lsp.enable; 0.8 to 0.10
-- use vim.lsp.start; 0.7 uses vim.lsp.start_client. Keep the part you need.
local cmd = { 'fplint', 'server' }
-- eksctl, CloudFormation and manifests are YAML or JSON; Terraform is `terraform`
-- (`tf` when Neovim takes a *.tf file for TinyFugue, `hcl` for other HCL files).
local filetypes = { 'yaml', 'json', 'terraform', 'tf', 'hcl' }
-- The project root: the nearest folder with fplint.toml or .git.
local root_markers = { 'fplint.toml', '.git' }

if vim.fn.has('nvim-0.11') == 1 then
  vim.lsp.config('fplint', { cmd = cmd, filetypes = filetypes, root_markers = root_markers })
  vim.lsp.enable('fplint')
else
  local function root_dir(buf)
    local start = vim.fn.fnamemodify(vim.api.nvim_buf_get_name(buf), ':p:h')
    local dir = start
    while true do
      for _, marker in ipairs(root_markers) do
        if vim.loop.fs_stat(dir .. '/' .. marker) then
          return dir
        end
      end
      local parent = vim.fn.fnamemodify(dir, ':h')
      if parent == dir then
        return start
      end
      dir = parent
    end
  end

  local clients = {} -- root folder -> client id, for Neovim 0.7
  vim.api.nvim_create_autocmd('FileType', {
    pattern = filetypes,
    callback = function(args)
      local root = root_dir(args.buf)
      if vim.lsp.start then
        vim.lsp.start({ name = 'fplint', cmd = cmd, root_dir = root }, { bufnr = args.buf })
        return
      end
      local id = clients[root]
      if id == nil or vim.lsp.get_client_by_id(id) == nil then
        id = vim.lsp.start_client({ name = 'fplint', cmd = cmd, root_dir = root })
        clients[root] = id
      end
      if id ~= nil then
        vim.lsp.buf_attach_client(args.buf, id)
      end
    end,
  })
end
