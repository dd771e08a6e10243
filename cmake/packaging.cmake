# `make deb`: a Debian package of the agent through CPack. Contents:
#   /usr/bin/llmon, /lib/systemd/system/llmon.service (packaging/llmon.service),
#   /etc/llmon/llmon.yml (a conffile: every option commented out),
#   /usr/share/llmon/{rules,logwatch,grafana} (the built-in packs, also compiled
#   in, and the dashboards), /usr/share/doc/llmon (README, docs).
# Maintainer scripts in packaging/debian/: enable and start on first install,
# restart on upgrade, stop on removal; the store in /var/lib/llmon is kept
# (even on purge: it is the users' history). Depends come from
# dpkg-shlibdeps. tests/integration/deb_package_test.sh checks the result.
install(TARGETS llmon RUNTIME DESTINATION bin)
install(FILES packaging/llmon.service DESTINATION /lib/systemd/system)
install(FILES packaging/llmon.yml DESTINATION /etc/llmon)
install(DIRECTORY deploy/rules/ DESTINATION share/llmon/rules FILES_MATCHING PATTERN "*.yml")
install(DIRECTORY deploy/logwatch/ DESTINATION share/llmon/logwatch FILES_MATCHING PATTERN "*.yml")
install(DIRECTORY deploy/grafana/ DESTINATION share/llmon/grafana FILES_MATCHING PATTERN "*.json")
install(FILES README.md DESTINATION share/doc/llmon)
install(DIRECTORY docs/ DESTINATION share/doc/llmon/docs FILES_MATCHING PATTERN "*.md")

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME llmon)
set(CPACK_PACKAGE_VENDOR llmon)
set(CPACK_PACKAGE_CONTACT "llmon maintainers <llmon@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "monitoring agent for GPU machines that train or serve LLMs")
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "monitoring agent for GPU machines that train or serve LLMs\n One binary that watches NVIDIA and AMD GPUs, CPUs, memory, network, disks and job logs,\n keeps its own history, evaluates Prometheus rules, notifies, and explains bottlenecks,\n with node_exporter and dcgm-exporter metric names and the Prometheus query API.")
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION admin)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA
    ${CMAKE_SOURCE_DIR}/packaging/debian/conffiles ${CMAKE_SOURCE_DIR}/packaging/debian/postinst
    ${CMAKE_SOURCE_DIR}/packaging/debian/prerm ${CMAKE_SOURCE_DIR}/packaging/debian/postrm)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
include(CPack)
