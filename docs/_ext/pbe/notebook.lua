-- pandoc filter: what pandoc's rST reader leaves of Sphinx, made Markdown.
--
-- pandoc reads a role it does not know as code marked "interpreted-text"
-- and a directive it does not know as a div named after it. This turns
-- them into what Jupyter and Colab show: a :ref: into a link to the
-- published page, an API role (:class:, :func:, ...) into code, linked to
-- the API docs where the site's page links it, a sphinx-design dropdown
-- into <details>, any other directive into its content. The links come
-- from the JSON file named by the metadata field pbe_links:
-- {"refs": {label: [title, url]}, "api": {"role:name": url}}.

local links = { refs = {}, api = {} }

local function read_links(meta)
  if meta.pbe_links then
    local file = io.open(pandoc.utils.stringify(meta.pbe_links), "r")
    if file then
      links = pandoc.json.decode(file:read("a"), false)
      file:close()
    end
  end
end

local function escape(text)
  return (text:gsub("&", "&amp;"):gsub("<", "&lt;"):gsub(">", "&gt;"))
end

-- "title <target>" or "target"
local function split_target(text)
  local title, target = text:match("^(.-)%s*<([^<>]+)>$")
  if target then
    return title, target
  end
  return nil, text
end

local function role_code(el)
  local role = el.attributes.role
  local title, target = split_target(el.text)
  if role == "ref" or role == "doc" then
    local found = links.refs[target]
    if found then
      return pandoc.Link(title or found[1], found[2])
    end
    return pandoc.Str(title or target)
  end
  local name = target:gsub("^[~!.]+", "")
  local shown = title
  if not shown then
    shown = target:sub(1, 1) == "~" and name:match("([^.]+)$") or name
  end
  local url = links.api[role .. ":" .. name]
  if url then
    return pandoc.Link(pandoc.Code(shown), url)
  end
  return pandoc.Code(shown)
end

local function directive(div)
  local kind = div.classes[1]
  if kind == "dropdown" then
    local blocks = div.content
    local summary = ""
    if #blocks > 0 and blocks[1].t == "Para" then
      summary = pandoc.utils.stringify(blocks[1])
      blocks:remove(1)
    end
    local open = div.attributes.open and " open" or ""
    local result = pandoc.List({
      pandoc.RawBlock(
        "html",
        "<details" .. open .. ">\n<summary>" .. escape(summary)
          .. "</summary>"
      ),
    })
    result:extend(blocks)
    result:insert(pandoc.RawBlock("html", "</details>"))
    return result
  end
  return div.content
end

return {
  { Meta = read_links },
  {
    Code = function(el)
      if el.classes:includes("interpreted-text") then
        return role_code(el)
      end
    end,
    Div = directive,
  },
}
