// PyTorch by Example: give the sidebar's expand/collapse toggles an
// accessible name (they hold only an icon; axe rule summary-name).
document.addEventListener("DOMContentLoaded", () => {
  document.querySelectorAll("nav summary").forEach((summary) => {
    if (!summary.textContent.trim() && !summary.hasAttribute("aria-label")) {
      summary.setAttribute("aria-label", "Show or hide the lessons of this section");
    }
  });
});
